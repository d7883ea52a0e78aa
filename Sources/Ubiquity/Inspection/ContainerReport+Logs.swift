import Foundation
import UbiquityCore
import UbiquitySync

extension ContainerReport {
    /// The transaction logs among `files` (named as the container scanner names logs), with
    /// their states; paths relative to the ubiquity root.
    public var logFiles: [(path: String, state: FileState)] {
        files.filter { TransactionLog.transactionNumber(inFileName: ($0.path as NSString).lastPathComponent) != nil }
    }
}
