import Testing

@testable import RewindValues

@Suite("HMAC-SHA-256")
struct HMACSHA256Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
    }

    /// RFC 4231, test cases 1, 2, 6 (a key longer than a block) and 7 (a key and a message longer
    /// than a block).
    @Test(arguments: [
        (
            [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func matchesRFC4231(key: [UInt8], message: [UInt8], code: String) {
        #expect(hex(HMACSHA256.authenticationCode(of: message, key: key)) == code)
    }

    @Test func aMessageInPiecesHasTheCodeOfTheWhole() {
        let key = Array("secret".utf8)
        var hasher = HMACSHA256(key: key)
        hasher.update(Array("user-".utf8))
        hasher.update(Array("42".utf8))
        #expect(hasher.finalize() == HMACSHA256.authenticationCode(of: Array("user-42".utf8), key: key))
        #expect(
            HMACSHA256.authenticationCode(of: Array("user-42".utf8), key: Array("other".utf8))
                != HMACSHA256.authenticationCode(of: Array("user-42".utf8), key: key))
    }
}
