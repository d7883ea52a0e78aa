import Crypto
import Foundation
import UbiquityPlist

/// A UUID made from a name (RFC 4122 version 5 layout, SHA-256 of the name's canonical bytes)
/// instead of drawn at random: the same name gives the same UUID on every machine and every
/// run. Log file names and content epochs use it, so a scenario's seed replays exactly — two
/// logs numbered alike (after a removal numbers start again) or two removals at one instant
/// are then ordered alike on every run — while names stay unique, since what they are made
/// from is.
package enum NameBasedUUID {
    package static func make(_ name: [PlistValue]) -> UUID {
        var bytes: [UInt8] = []
        CanonicalEncoding.append(.array(name), to: &bytes)
        var digest = Array(SHA256.hash(data: bytes).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50   // version 5
        digest[8] = (digest[8] & 0x3F) | 0x80   // RFC 4122 variant
        return UUID(uuid: (digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                           digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]))
    }
}
