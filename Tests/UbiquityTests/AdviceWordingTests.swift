import Testing
import Ubiquity

/// The library's messages name its API, never a command of the tool; the tool words the same
/// remedies as its commands (Docs/Library.md, "Errors").
@Suite("Advice wording")
struct AdviceWordingTests {
    static let everyRemedy: [Remedy] = [
        .createDevice, .moveCloud(to: "/c", device: "/d"), .unlockEncryption, .enableEncryption, .repairKeyRecord,
        .migrateStore, .migrateStoreFromModel, .compareModels, .examine, .openAccountStore, .sync,
        .rollBaseline, .shortenGracePeriod,
    ]

    @Test func everyRemedyIsWordedAsAnAPICallWithoutNamingTheTool() {
        for remedy in Self.everyRemedy {
            #expect(!remedy.description.contains("ubiq"), "\(remedy)")
            #expect(!remedy.description.contains("'"), "quotes no command line: \(remedy)")
        }
    }

    @Test func anErrorNamesTheAPIAndKeepsItsRemediesTyped() {
        let (message, remedies, toolMessage) = adviceOfAnError()
        #expect(message.hasSuffix("to move the device to /new on purpose, call Device.moveCloud(to: \"/new\", at: \"/d\")"))
        #expect(remedies == [.moveCloud(to: "/new", device: "/d")])
        #expect(toolMessage.hasSuffix("to move the device to /new on purpose, run 'mytool move-cloud /new'"))
    }

    @Test func nestedErrorsKeepTheirRemedies() {
        let error = PeerError.device(.notInitialized("/d"))
        #expect(error.description == "no device at /d (call Device.create(at:) first)")
        #expect(error.advice.remedies == [.createDevice])
    }

    @Test func theNoKeyMessageOfSyncAndEncryptionIsOneAdvice() {
        #expect(SyncError.encryptedWithoutKey.advice == EncryptionError.noKey.advice)
        #expect(SyncError.encryptedWithoutKey.advice.remedies == [.unlockEncryption])
    }
}
