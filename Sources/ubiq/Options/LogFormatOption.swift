import ArgumentParser
import Ubiquity
import UbiquityPlist

/// The log format written into the cloud.
enum LogFormatOption: String, ExpressibleByArgument, CaseIterable {
    case binary, xml

    var plistFormat: PlistFormat { self == .xml ? .xml : .binary }
}
