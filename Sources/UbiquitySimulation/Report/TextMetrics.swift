/// How wide a line of text is drawn in the report's font, without a browser to ask, so the
/// layout can keep labels apart. It errs wide: each character counts as the wider of
/// Helvetica (Liberation Sans and Arial share its widths) and DejaVu Sans, the fallback of a
/// Linux without them, as measured in Chromium; characters beyond ASCII count one em.
enum TextMetrics {
    /// The font-family every text of the report is set in.
    static let fontFamily = "Helvetica, Arial, sans-serif"

    /// The width in pixels of `text` set at `size` pixels.
    static func width(_ text: String, size: Double, bold: Bool = false) -> Double {
        let table = bold ? boldWidths : normalWidths
        var thousandths = 0
        for scalar in text.unicodeScalars {
            let value = Int(scalar.value)
            thousandths += (32..<127).contains(value) ? table[value - 32] : 1000
        }
        return Double(thousandths) * size / 1000
    }

    /// The longest prefix of `text` that fits `width` with an ellipsis after it (`text` itself
    /// when it fits; empty when not even one character and the ellipsis fit).
    static func truncate(_ text: String, toFit width: Double, size: Double, bold: Bool = false) -> String {
        if Self.width(text, size: size, bold: bold) <= width { return text }
        var kept = Substring(text)
        while !kept.isEmpty {
            kept = kept.dropLast()
            let candidate = kept.trimmingTrailingSpaces() + "…"
            if !kept.isEmpty && Self.width(candidate, size: size, bold: bold) <= width { return candidate }
        }
        return ""
    }

    /// Thousandths of an em, for the characters 32…126.
    private static let normalWidths = [
        318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
        636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 556,
        1015, 684, 686, 722, 770, 667, 611, 778, 752, 295, 500, 667, 557, 863, 748, 787,
        667, 787, 722, 667, 611, 732, 684, 989, 685, 667, 685, 390, 337, 390, 838, 556,
        500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
        635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
    ]
    private static let boldWidths = [
        348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365,
        696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 611,
        1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 556, 775, 637, 995, 837, 850,
        733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 556,
        500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
        716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
    ]
}

private extension Substring {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
