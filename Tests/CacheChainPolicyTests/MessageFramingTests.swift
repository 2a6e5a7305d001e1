import CacheChainPolicy
import HTTPTypes
import Testing

@Suite("RFC 9112 §6.3 message framing: defects and the head that describes the body received")
struct MessageFramingTests {
    struct DefectCase: Sendable, CustomTestStringConvertible {
        let name: String
        let fields: [(String, String)]
        let defect: MessageFraming.Defect?
        var testDescription: String { name }
    }

    static let defectCases: [DefectCase] = [
        DefectCase(name: "one Content-Length", fields: [("Content-Length", "5")], defect: nil),
        DefectCase(name: "chunked alone", fields: [("Transfer-Encoding", "chunked")], defect: nil),
        DefectCase(name: "no framing field", fields: [], defect: nil),
        DefectCase(name: "the same length on two lines is one length (§8.6)", fields: [("Content-Length", "5"), ("Content-Length", "5")], defect: nil),
        DefectCase(name: "the same length as a list is one length (§8.6)", fields: [("Content-Length", "5, 5")], defect: nil),
        DefectCase(
            name: "chunked with a Content-Length (§6.3 item 3)",
            fields: [("Transfer-Encoding", "chunked"), ("Content-Length", "15")],
            defect: .transferEncodingWithContentLength
        ),
        DefectCase(
            name: "two different lengths on two lines (§6.3 item 5)",
            fields: [("Content-Length", "5"), ("Content-Length", "15")],
            defect: .invalidContentLength(["5", "15"])
        ),
        DefectCase(name: "two different lengths in a list", fields: [("Content-Length", "5,15")], defect: .invalidContentLength(["5", "15"])),
        DefectCase(name: "a length that is not a number", fields: [("Content-Length", "5x")], defect: .invalidContentLength(["5x"])),
        DefectCase(name: "a negative length", fields: [("Content-Length", "-1")], defect: .invalidContentLength(["-1"])),
        DefectCase(name: "an empty list member", fields: [("Content-Length", "5,")], defect: .invalidContentLength(["5", ""])),
    ]

    @Test("defect(of:)", arguments: defectCases)
    func defect(_ row: DefectCase) {
        #expect(MessageFraming.defect(of: Self.response(200, row.fields)) == row.defect)
    }

    struct HeadCase: Sendable, CustomTestStringConvertible {
        let name: String
        var method: HTTPRequest.Method = .get
        let status: Int
        let fields: [(String, String)]
        let bodyLength: Int
        let contentLength: [String]
        var testDescription: String { name }
    }

    static let headCases: [HeadCase] = [
        HeadCase(name: "200: the received length replaces a wrong one", status: 200, fields: [("Content-Length", "15")], bodyLength: 5, contentLength: ["5"]),
        HeadCase(
            name: "200 chunked: Transfer-Encoding gone, the received length set",
            status: 200,
            fields: [("Transfer-Encoding", "chunked"), ("Content-Length", "15")],
            bodyLength: 5,
            contentLength: ["5"]
        ),
        HeadCase(name: "200 repeated length: one field", status: 200, fields: [("Content-Length", "5"), ("Content-Length", "5")], bodyLength: 5, contentLength: ["5"]),
        HeadCase(name: "200 without framing (read to close): the received length", status: 200, fields: [], bodyLength: 7, contentLength: ["7"]),
        HeadCase(name: "204: no Content-Length (§8.6)", status: 204, fields: [("Content-Length", "5")], bodyLength: 0, contentLength: []),
        HeadCase(name: "1xx: no Content-Length", status: 103, fields: [("Content-Length", "5")], bodyLength: 0, contentLength: []),
        HeadCase(name: "304: the selected representation's length is kept", status: 304, fields: [("Content-Length", "42")], bodyLength: 0, contentLength: ["42"]),
        HeadCase(name: "304 repeated length: one value", status: 304, fields: [("Content-Length", "42, 42")], bodyLength: 0, contentLength: ["42"]),
        HeadCase(name: "HEAD: the length the GET would have is kept", method: .head, status: 200, fields: [("Content-Length", "42")], bodyLength: 0, contentLength: ["42"]),
    ]

    @Test("headDescribing(_:bodyLength:requestMethod:)", arguments: headCases)
    func head(_ row: HeadCase) {
        let head = MessageFraming.headDescribing(Self.response(row.status, row.fields), bodyLength: row.bodyLength, requestMethod: row.method)
        #expect(head.headerFields[values: .contentLength] == row.contentLength)
        #expect(head.headerFields[.transferEncoding] == nil)
        #expect(head.status.code == row.status)
    }

    @Test("a defect names the RFC and the values")
    func description() {
        let text = String(describing: MessageFraming.Defect.invalidContentLength(["5", "15"]))
        #expect(text.contains("5, 15") && text.contains("RFC 9112 §6.3"))
    }

    private static func response(_ status: Int, _ fields: [(String, String)]) -> HTTPResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields {
            if let fieldName = HTTPField.Name(name) { headerFields.append(HTTPField(name: fieldName, value: value)) }
        }
        return HTTPResponse(status: .init(code: status), headerFields: headerFields)
    }
}
