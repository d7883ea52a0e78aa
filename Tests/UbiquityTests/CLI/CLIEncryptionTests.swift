import Foundation
import Testing
@testable import Ubiquity

/// `ubiq encryption`, run as processes: the passphrase from a file (never argv), a device
/// without it told in one line, a wrong one refused, the key kept for daily commands.
@Suite("CLI encryption")
struct CLIEncryptionTests {
    @Test func enableUnlockAndChangeThePassphrase() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        let passphrase = sandbox.root + "/passphrase", wrong = sandbox.root + "/wrong", newer = sandbox.root + "/newer"
        try Data("river stone 42\n".utf8).write(to: URL(fileURLWithPath: passphrase))
        try Data("not it\n".utf8).write(to: URL(fileURLWithPath: wrong))
        try Data("a newer one\n".utf8).write(to: URL(fileURLWithPath: newer))

        let refused = try sandbox.run(["encryption", "enable"], device: "phone")
        #expect(!refused.succeeded && refused.stderr.contains("no passphrase: set UBIQUITY_PASSPHRASE"), "\(refused)")
        let enabled = try sandbox.succeed(["encryption", "enable", "--passphrase-file", passphrase, "--scrypt-log-n", "10"], device: "phone")
        #expect(enabled.stdout.hasPrefix("encrypted (key "), "\(enabled)")
        try sandbox.succeed(["insert", "Note", "title=Hidden from the cloud"], device: "phone")
        try sandbox.succeed(["sync"], device: "phone")

        let locked = try sandbox.run(["sync"], device: "laptop")
        #expect(!locked.succeeded)
        #expect(locked.stderr.split(separator: "\n").count == 1 && locked.stderr.contains("content is encrypted; no key on this device"), "\(locked)")
        #expect(try sandbox.succeed(["status"], device: "laptop").stdout.contains("encryption: content is encrypted; no key on this device"))
        #expect(try sandbox.run(["doctor"], device: "laptop").stdout.contains("content is encrypted; no key on this device"))
        let guessed = try sandbox.run(["encryption", "unlock", "--passphrase-file", wrong], device: "laptop")
        #expect(!guessed.succeeded && guessed.stderr.contains("wrong passphrase"), "\(guessed)")
        try sandbox.succeed(["encryption", "unlock", "--passphrase-file", passphrase], device: "laptop")
        try sandbox.succeed(["sync"], device: "laptop")
        #expect(try sandbox.dump("laptop").contains("Hidden from the cloud"))

        let file = try #require(sandbox.succeed(["logs", "list"], device: "laptop").stdoutLines.first?.split(separator: " ").last.map(String.init))
        #expect(try sandbox.succeed(["logs", "show", file], device: "laptop").stdout.contains("Hidden from the cloud"), "logs show opens a sealed log")

        try sandbox.succeed(["encryption", "change-passphrase", "--passphrase-file", passphrase, "--new-passphrase-file", newer], device: "phone")
        try sandbox.initDevice("tablet")
        #expect(!(try sandbox.run(["encryption", "unlock", "--passphrase-file", passphrase], device: "tablet").succeeded))
        try sandbox.succeed(["encryption", "unlock", "--passphrase-file", newer], device: "tablet")
        try sandbox.succeed(["sync"], device: "tablet")
        #expect(try sandbox.dump("tablet").contains("Hidden from the cloud"))
        let status = try sandbox.succeed(["encryption", "status", "--json"], device: "tablet")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(json["state"] as? String == "sealed")
        #expect((json["scrypt"] as? [String: Any])?["logN"] as? Int == 10)
    }

    /// The key record's key ID edited in the cloud: the device without the key is told the
    /// record was altered, the right passphrase opens it and puts it back, and a device holding
    /// the key puts it back without one (`encryption repair`).
    @Test func anAlteredKeyRecordIsToldAndRepaired() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        let passphrase = sandbox.root + "/passphrase"
        try Data("river stone 42\n".utf8).write(to: URL(fileURLWithPath: passphrase))
        try sandbox.succeed(["encryption", "enable", "--passphrase-file", passphrase, "--scrypt-log-n", "10"], device: "phone")
        try sandbox.succeed(["insert", "Note", "title=Hidden from the cloud"], device: "phone")
        try sandbox.succeed(["sync"], device: "phone")
        let paths = FileManager.default.enumerator(atPath: sandbox.cloud)?.allObjects.compactMap { $0 as? String } ?? []
        let record = sandbox.cloud + "/" + (try #require(paths.first { $0.contains(".encryption/") && $0.hasSuffix(".plist") }))
        func alter() throws {
            guard case var .dictionary(fields) = try PlistSeam.decode(try AtomicFile.read(record, limit: 1 << 16)) else { return }
            fields["keyID"] = .string(String(repeating: "ab", count: 16))
            try AtomicFile.write(PlistSeam.encode(.dictionary(fields), format: .xml), to: record)
        }

        try alter()
        let locked = try sandbox.run(["sync"], device: "laptop")
        #expect(!locked.succeeded && locked.stderr.contains("the key record \(record) was altered: it names key abababab…"), "\(locked)")
        let unlocked = try sandbox.succeed(["encryption", "unlock", "--passphrase-file", passphrase], device: "laptop")
        #expect(unlocked.stdoutLines.first?.hasPrefix("the key record was altered (it named key abababab…): put back") == true, "\(unlocked)")
        try sandbox.succeed(["sync"], device: "laptop")
        #expect(try sandbox.dump("laptop").contains("Hidden from the cloud"))

        try alter()
        #expect(try sandbox.succeed(["encryption", "status"], device: "phone").stdout.contains("the key record was altered"))
        let repaired = try sandbox.succeed(["encryption", "repair"], device: "phone")
        #expect(repaired.stdout.hasPrefix("the key record was altered (it named key abababab…): put back"), "\(repaired)")
        #expect(try sandbox.succeed(["encryption", "repair"], device: "phone").stdout == "the key record is intact: nothing to repair\n")
    }

    /// With $UBIQUITY_PASSPHRASE exported (passed to the child only), `sync` on a device without
    /// the key gives it the key first and says so in one line; a wrong one fails naming the
    /// variable and changes nothing; the key is kept, so the next command needs no passphrase.
    @Test func aPassphraseInTheEnvironmentUnlocksTheDeviceFirst() throws {
        let sandbox = try CLISandbox()
        try sandbox.initDevice("phone")
        try sandbox.initDevice("laptop")
        let passphrase = "river stone 42"
        try sandbox.succeed(["encryption", "enable", "--scrypt-log-n", "10"], device: "phone", environment: ["UBIQUITY_PASSPHRASE": passphrase])
        try sandbox.succeed(["insert", "Note", "title=Hidden from the cloud"], device: "phone")
        try sandbox.succeed(["sync"], device: "phone")

        let wrong = try sandbox.run(["sync"], device: "laptop", environment: ["UBIQUITY_PASSPHRASE": "not it"])
        #expect(!wrong.succeeded && wrong.stdout.isEmpty, "\(wrong)")
        #expect(wrong.stderrLines == ["ubiq: error: $UBIQUITY_PASSPHRASE does not open the key of this encrypted content (wrong passphrase; nothing was changed): export the right one, or unset it"], "\(wrong)")
        #expect(try sandbox.succeed(["encryption", "status"], device: "laptop").stdout.contains("no key on this device"), "nothing was changed")

        let synced = try sandbox.succeed(["sync"], device: "laptop", environment: ["UBIQUITY_PASSPHRASE": passphrase])
        #expect(synced.stderrLines == ["ubiq: this device was given the content key with the passphrase in $UBIQUITY_PASSPHRASE (it keeps the key from now on)"], "\(synced)")
        #expect(try sandbox.dump("laptop").contains("Hidden from the cloud"))
        let again = try sandbox.succeed(["sync"], device: "laptop", environment: ["UBIQUITY_PASSPHRASE": passphrase])
        #expect(again.stderr.isEmpty, "a device that holds the key is left as it is: \(again)")
        try sandbox.succeed(["insert", "Note", "title=From the laptop"], device: "laptop")
        try sandbox.succeed(["sync"], device: "laptop")
        try sandbox.succeed(["sync"], device: "phone")
        #expect(try sandbox.dump("phone").contains("From the laptop"), "the laptop writes sealed logs the phone reads, with no passphrase")
    }
}
