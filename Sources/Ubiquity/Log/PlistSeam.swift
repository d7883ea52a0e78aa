import Foundation
import UbiquityPlist

/// The one place the library turns property-list values into bytes and back.
///
/// Temporarily backed by Foundation's `PropertyListSerialization` until the UbiquityPlist codec lands.
enum PlistSeam {
    static func encode(_ value: PlistValue, format: PlistFormat) -> [UInt8] {
        let object = foundationObject(value)
        let data = (try? PropertyListSerialization.data(fromPropertyList: object, format: format == .binary ? .binary : .xml, options: 0)) ?? Data()
        return [UInt8](data)
    }

    static func decode(_ bytes: [UInt8]) throws -> PlistValue {
        do {
            let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            guard let value = plistValue(object) else { throw PlistSeamError(message: "unsupported property-list object") }
            return value
        } catch let error as PlistSeamError {
            throw error
        } catch {
            throw PlistSeamError(message: "not a property list (\(error.localizedDescription))")
        }
    }

    private static func foundationObject(_ value: PlistValue) -> Any {
        switch value {
        case let .string(s): return s
        case let .integer(i): return NSNumber(value: i)
        case let .unsignedInteger(u): return NSNumber(value: u)
        case let .real(d): return NSNumber(value: d)
        case let .boolean(b): return NSNumber(value: b)
        case let .date(d): return Date(timeIntervalSince1970: d)
        case let .data(d): return Data(d)
        case let .array(a): return a.map(foundationObject)
        case let .dictionary(d): return d.mapValues(foundationObject)
        }
    }

    private static func plistValue(_ object: Any) -> PlistValue? {
        switch object {
        case let s as String: return .string(s)
        case let d as Data: return .data([UInt8](d))
        case let d as Date: return .date(d.timeIntervalSince1970)
        case let a as [Any]:
            var result: [PlistValue] = []
            for element in a { guard let v = plistValue(element) else { return nil }; result.append(v) }
            return .array(result)
        case let d as [String: Any]:
            var result: [String: PlistValue] = [:]
            for (k, element) in d { guard let v = plistValue(element) else { return nil }; result[k] = v }
            return .dictionary(result)
        case let n as NSNumber:
            let type = String(cString: n.objCType)
            if type == "c" || type == "B" { return .boolean(n.boolValue) }
            if type == "d" || type == "f" { return .real(n.doubleValue) }
            if type == "Q" && n.uint64Value > UInt64(Int64.max) { return .unsignedInteger(n.uint64Value) }
            return .integer(n.int64Value)
        default: return nil
        }
    }
}

struct PlistSeamError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
