/// Figures that several suites print, measured once per run and kept by object count: the
/// import, join and maintenance suites print the main size, the scaling suite every size.
final class FigureBook {
    let options: BenchmarkOptions
    /// Every headline figure, for `--json`.
    let sheet = FigureSheet()
    private var imports: [Int: ImportFigures] = [:]
    private var joins: [Int: JoinFigures] = [:]

    init(options: BenchmarkOptions) { self.options = options }

    func imports(_ count: Int) throws -> ImportFigures {
        if let known = imports[count] { return known }
        let figures = try ImportFigures.measure(count: count, runs: options.runs(objects: count))
        imports[count] = figures
        return figures
    }

    func joins(_ count: Int) throws -> JoinFigures {
        if let known = joins[count] { return known }
        let figures = try JoinFigures.measure(count: count, runs: options.runs(objects: count))
        joins[count] = figures
        return figures
    }
}
