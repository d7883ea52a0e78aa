/// The XML plist date form, `YYYY-MM-DDTHH:MM:SS[.fff…]Z` (UTC), with an exact round trip.
///
/// A time `t` is split into `I = floor(t)` and `f = t - I` (the subtraction is exact). The
/// fraction is written with the fewest decimal digits `d` for which `Double(I) + Double(0.d)`
/// is again exactly `t`, and the reader computes that same sum, so every finite date that is
/// not -0 survives the text form bit for bit. Whole seconds get no fraction, which is the
/// form Foundation and plistlib read.
enum ISO8601Date {
    /// Instants beyond about ±3 million years are clamped; NaN (which no date form can hold)
    /// is written as the epoch. Years outside 0…9999 use ISO 8601's expanded form (`-0001`,
    /// `+10000`), which only this reader accepts.
    static let clamp: Double = 1e14

    /// Whether the text form holds `time` exactly: finite, within ±10^14 s, and not -0.
    static func isExact(_ time: Double) -> Bool {
        time.isFinite && abs(time) <= clamp && !(time == 0 && time.sign == .minus)
    }

    static func format(_ time: Double) -> String {
        var out = [UInt8]()
        format(time, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text form of `time` to `out` (no intermediate strings: the XML writer
    /// calls this once per date).
    static func format(_ time: Double, into out: inout [UInt8]) {
        var t = time.isNaN ? 0 : min(max(time, -clamp), clamp)
        if t == 0 { t = 0 }  // -0 has no text form distinct from 0
        let whole = t.rounded(.down)
        let fraction = t - whole
        let seconds = Int64(whole)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)

        if year < 0 {
            out.append(UInt8(ascii: "-")); digits(-year, 4, &out)
        } else if year > 9999 {
            out.append(UInt8(ascii: "+")); digits(year, 4, &out)
        } else {
            digits(year, 4, &out)
        }
        out.append(UInt8(ascii: "-")); digits(Int64(month), 2, &out)
        out.append(UInt8(ascii: "-")); digits(Int64(day), 2, &out)
        out.append(UInt8(ascii: "T")); digits(secondOfDay / 3600, 2, &out)
        out.append(UInt8(ascii: ":")); digits(secondOfDay / 60 % 60, 2, &out)
        out.append(UInt8(ascii: ":")); digits(secondOfDay % 60, 2, &out)
        if fraction != 0 {
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: fractionDigits(whole: whole, fraction: fraction, time: t).utf8)
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// Decimal digits of a non-negative `value`, zero-padded to at least `width`.
    private static func digits(_ value: Int64, _ width: Int, _ out: inout [UInt8]) {
        var buffer: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &buffer) { b in
            var v = value
            var n = 0
            repeat {
                b[19 - n] = UInt8(v % 10) + 0x30
                v /= 10
                n += 1
            } while v > 0 || n < width
            out.append(contentsOf: b[(20 - n)...])
        }
    }

    private static let powersOfTen: [Double] = (0 ... 22).map { p in
        var v = 1.0
        for _ in 0 ..< p { v *= 10 }  // exact: every 10^p up to 10^22 is a Double
        return v
    }

    /// Shortest digit string `d` with `whole + value("0.d") == time`.
    private static func fractionDigits(whole: Double, fraction: Double, time: Double) -> String {
        for p in 1 ... 15 {
            let scale = powersOfTen[p]
            let nearest = Int64((fraction * scale).rounded())
            for n in [nearest, nearest - 1, nearest + 1] where n > 0 && Double(n) < scale {
                // n and 10^p are exact Doubles, so the quotient is the correctly rounded value
                // of the decimal, the same as the reader's parse.
                if whole + Double(n) / scale == time {
                    var digits = String(n)
                    digits = String(repeating: "0", count: p - digits.count) + digits
                    while digits.hasSuffix("0") { digits.removeLast() }
                    return digits
                }
            }
        }
        return plainDigits(of: fraction)
    }

    /// The digits after "0." of `fraction`'s shortest round-trip decimal, without exponent.
    private static func plainDigits(of fraction: Double) -> String {
        let text = fraction.description  // e.g. "0.125", "1.5e-07"
        let parts = text.split(separator: "e")
        let mantissa = parts[0].filter { $0 != "." }
        let exponent = parts.count > 1 ? Int(parts[1])! : 0
        let pointIndex = (parts[0].firstIndex(of: ".").map { parts[0].distance(from: parts[0].startIndex, to: $0) } ?? parts[0].count) + exponent
        // The value is below 1, so pointIndex <= 1 and the leading digit before it is "0".
        var digits = String(repeating: "0", count: max(0, -pointIndex)) + mantissa
        if pointIndex > 0 { digits.removeFirst(pointIndex) }
        while digits.hasSuffix("0") { digits.removeLast() }
        return digits
    }

    /// Parses the date form; nil when malformed.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let n = text.count
        func number(_ width: Int) -> Int64? {
            guard i + width <= n else { return nil }
            var value: Int64 = 0
            for k in i ..< i + width {
                let c = text[k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int64(c - 0x30)
            }
            i += width
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard i < n, text[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        var sign: Int64 = 1
        if i < n, text[i] == UInt8(ascii: "-") { sign = -1; i += 1 } else if i < n, text[i] == UInt8(ascii: "+") { i += 1 }
        var yearWidth = 0
        while i + yearWidth < n, (0x30 ... 0x39).contains(text[i + yearWidth]) { yearWidth += 1 }
        guard yearWidth >= 4, yearWidth <= 9, let yearDigits = number(yearWidth) else { return nil }
        let year = sign * yearDigits
        guard expect("-"), let month = number(2), expect("-"), let day = number(2), expect("T"),
              let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2)
        else { return nil }
        guard (1 ... 12).contains(month), day >= 1, day <= daysInMonth(year, Int(month)),
              hour < 24, minute < 60, second < 60 else { return nil }
        var fraction = 0.0
        if i < n, text[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < n, (0x30 ... 0x39).contains(text[i]) { i += 1 }
            let count = i - start
            guard count > 0 else { return nil }
            if count <= 15 {
                var value: Int64 = 0
                for k in start ..< i { value = value * 10 + Int64(text[k] - 0x30) }
                fraction = Double(value) / powersOfTen[count]
            } else {
                let digits = String(decoding: UnsafeBufferPointer(rebasing: text[start ..< i]), as: UTF8.self)
                guard let value = Double("0." + digits) else { return nil }
                fraction = value
            }
        }
        guard expect("Z"), i == n else { return nil }
        let days = self.days(fromCivil: year, Int(month), Int(day))
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Double(seconds) + fraction
    }

    private static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysInMonth(_ year: Int64, _ month: Int) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Proleptic Gregorian calendar, counting in 400-year cycles of 146,097 days whose years
    /// start on 1 March, so the leap day is the last day of a cycle year.
    static func days(fromCivil year: Int64, _ month: Int, _ day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let cycle = (y >= 0 ? y : y - 399) / 400
        let yearOfCycle = y - cycle * 400
        let m = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * m + 2) / 5 + Int64(day) - 1
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        return cycle * 146_097 + dayOfCycle - 719_468  // 719,468 days from 0000-03-01 to 1970-01-01
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let cycle = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfCycle = z - cycle * 146_097
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let m = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * m + 2) / 5 + 1)
        let month = Int(m < 10 ? m + 3 : m - 9)
        return (yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
