import Foundation
import Kura
@testable import KuraCore
import Testing

/// `AttributeValue.text` and `init(text:as:)`, what `kura export` and
/// `kura import` write and read.
@Suite struct AttributeValueTextTests {
    @Test func everyTypeReadsBackAsTheSameValue() throws {
        let values: [(AttributeValue, AttributeType)] = [
            (.bool(true), .bool), (.int(-9_223_372_036_854_775_808), .int64), (.int(32_767), .int16),
            (.double(0.1), .double), (.double(1e-300), .double), (.double(-.infinity), .double),
            (.double(.greatestFiniteMagnitude), .double), (.float(0.1), .float), (.float(.infinity), .float),
            (.decimal(Decimal(string: "12345678901234567890.123456789")!), .decimal), (.decimal(.nan), .decimal),
            (.string("a, \"quoted\"\nline"), .string), (.uuid(UUID()), .uuid),
            (.data(Data([0, 1, 2, 250, 255])), .data), (.data(Data()), .data),
            (.url(URL(string: "https://example.com/a?b=c#d")!), .url),
        ]
        for (value, type) in values {
            #expect(AttributeValue(text: value.text, as: type) == value, "\(value) as \(value.text)")
        }
        #expect(AttributeValue(text: "nan", as: .double).map { if case .double(let x) = $0 { x.isNaN } else { false } } == true)
    }

    @Test func datesKeepEverySecondFractionBit() throws {
        var generator = SystemRandomNumberGenerator()
        var seconds: [Double] = [0, -0.25, -12.25, 785_152_800, 785_152_800.123456, 1e-9, -63_113_904_000, 252_423_993_599.5]
        for _ in 0..<2000 {
            seconds.append(Double.random(in: -3e9...3e9, using: &generator))
            seconds.append(Double.random(in: 7.8e8...7.9e8, using: &generator).rounded() + Double(Int.random(in: 0..<1000)) / 1000)
        }
        for value in seconds {
            let date = Date(timeIntervalSinceReferenceDate: value)
            let text = AttributeValue.date(date).text
            let back = AttributeValue(text: text, as: .date)
            #expect(back == .date(date), "\(value) written \(text)")
        }
        #expect(AttributeValue.date(Date(timeIntervalSinceReferenceDate: 785_152_800.25)).text == "2025-11-18T10:00:00.25Z")
        #expect(AttributeValue.date(Date(timeIntervalSinceReferenceDate: -0.25)).text == "2000-12-31T23:59:59.75Z")
        // Far outside the years ISO 8601 text is written for: seconds.
        #expect(AttributeValue.date(Date(timeIntervalSinceReferenceDate: 1e15)).text == "1000000000000000.0")
        #expect(AttributeValue(text: "1e+15", as: .date) == .date(Date(timeIntervalSinceReferenceDate: 1e15)))
    }

    @Test func fractionsWrittenByHandRoundOnceAsDoubleReadsTheirText() throws {
        // 2026-11-24T00:00:00Z is 817_171_200 seconds after 2001; any digits
        // after it must give what Double(_:) gives for "817171200.digits",
        // through the exact fast path (up to 2^53) and past it (long fractions).
        var generator = SystemRandomNumberGenerator()
        let leap = try #require(AttributeValue(text: "2024-02-29T00:00:00Z", as: .date))
        #expect(leap == .date(Date(timeIntervalSinceReferenceDate: 730_857_600)))
        for count in 1...30 {
            for _ in 0..<50 {
                let digits = String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
                let parsed = AttributeValue(text: "2026-11-24T00:00:00.\(digits)Z", as: .date)
                let expected = try #require(Double("817171200.\(digits)"))
                #expect(parsed == .date(Date(timeIntervalSinceReferenceDate: expected)), "\(digits)")
            }
        }
        #expect(AttributeValue(text: "2023-02-29T00:00:00Z", as: .date) == nil, "not a leap year")
        #expect(AttributeValue(text: "2100-02-29T00:00:00Z", as: .date) == nil, "a century that is not a leap year")
        #expect(AttributeValue(text: "2026-04-31T00:00:00Z", as: .date) == nil)
    }

    @Test func textThatIsOnlyPartlyAValueIsRefused() {
        #expect(AttributeValue(text: "1.5abc", as: .decimal) == nil)
        #expect(AttributeValue(text: "", as: .decimal) == nil)
        #expect(AttributeValue(text: "1e", as: .decimal) == nil)
        #expect(AttributeValue(text: "-1.5e3", as: .decimal) == .decimal(Decimal(string: "-1500")!))
        #expect(AttributeValue(text: "40000", as: .int16) == nil)
        #expect(AttributeValue(text: "12x", as: .int64) == nil)
        #expect(AttributeValue(text: "maybe", as: .bool) == nil)
        #expect(AttributeValue(text: "2026-11-23T08:30:00.x", as: .date) == nil)
        #expect(AttributeValue(text: "not base64!", as: .data) == nil)
        #expect(AttributeValue(text: "2026-02-30T00:00:00Z", as: .date) == nil)
        #expect(AttributeValue(text: "2026-11-23T25:00:00Z", as: .date) == nil)
        #expect(AttributeValue(text: "2026-11-23T08:30:00", as: .date) == nil, "no time zone")
        #expect(AttributeValue(text: "2026-11-23", as: .date) == AttributeValue(text: "2026-11-23T00:00:00Z", as: .date))
        #expect(AttributeValue(text: "2024-02-29T12:00:00-0130", as: .date) == AttributeValue(text: "2024-02-29T13:30:00Z", as: .date))
        #expect(AttributeValue(text: "2026-11-23T08:30:00.5+01:00", as: .date)
            == AttributeValue(text: "2026-11-23T07:30:00.5Z", as: .date))
    }
}
