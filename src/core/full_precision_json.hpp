#pragma once
// Internal: JSON parsing with every number converted exactly, without
// RapidJSON 1.1.0's full-precision number parser.
//
// Number keys must parse to the nearest double (their text is JS String(n)
// and decides placement), and RapidJSON's default parser can be an ulp off.
// But 1.1.0's kParseFullPrecisionFlag path (Debian 12's package) is broken at
// the edges, on input anyone can send:
//   - a zero significand with a decimal exponent outside [-22, 37] (`0e308`,
//     `0.0e-23`) calls __builtin_clzll(0) (undefined; with g++ -O2 `0e38`
//     parses as -1.9e227);
//   - more than 19 significant digits with an exponent near -340
//     (`5646634601975513831.6603088440e-349`) indexes its cached powers of ten
//     out of bounds: a segfault;
//   - values past the double range parse wrongly (`10e308` as -3.1e-308,
//     `1.8e308` as NaN, `2e-324` as 4.9e-324).
// So RapidJSON only tokenises (kParseNumbersAsStringsFlag: same grammar, same
// errors and offsets) and ReadJsonNumber converts each number with
// std::from_chars, which rounds correctly. Every full-precision parse in
// docshard goes through ParseFullPrecision.
#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstdint>
#include <string_view>

namespace docshard::detail {

// A JSON number as RapidJSON stores it: integers that fit in 32 or 64 bits
// keep its integer types (configs read integers by type), anything else is
// the correctly rounded double (±0 below the range, ±infinity above it, as
// strtod and JavaScript give).
struct JsonNumber {
  enum class Kind { Int, Uint, Int64, Uint64, Double };
  Kind Type = Kind::Double;
  std::int64_t Signed = 0;     // Int, Int64
  std::uint64_t Unsigned = 0;  // Uint, Uint64
  double Real = 0;             // Double
};

// `token` must match JSON's number grammar, as RapidJSON has checked.
JsonNumber ReadJsonNumber(std::string_view token) noexcept;

// Forwards RapidJSON's SAX events to a document, converting numbers (which
// arrive as text) with ReadJsonNumber.
template <typename Document>
class ExactNumberHandler final {
public:
  using Ch = typename Document::Ch;

  explicit ExactNumberHandler(Document& document) noexcept : m_document(document) {}

  bool RawNumber(Ch const* text, rapidjson::SizeType length, bool) {
    auto const n = ReadJsonNumber(std::string_view(text, length));
    switch (n.Type) {
    case JsonNumber::Kind::Int: return m_document.Int(static_cast<int>(n.Signed));
    case JsonNumber::Kind::Uint: return m_document.Uint(static_cast<unsigned>(n.Unsigned));
    case JsonNumber::Kind::Int64: return m_document.Int64(n.Signed);
    case JsonNumber::Kind::Uint64: return m_document.Uint64(n.Unsigned);
    case JsonNumber::Kind::Double: break;
    }
    return m_document.Double(n.Real);
  }

  bool Null() { return m_document.Null(); }
  bool Bool(bool b) { return m_document.Bool(b); }
  // Not called with kParseNumbersAsStringsFlag, but the reader names them.
  bool Int(int i) { return m_document.Int(i); }
  bool Uint(unsigned u) { return m_document.Uint(u); }
  bool Int64(std::int64_t i) { return m_document.Int64(i); }
  bool Uint64(std::uint64_t u) { return m_document.Uint64(u); }
  bool Double(double d) { return m_document.Double(d); }
  bool String(Ch const* s, rapidjson::SizeType length, bool copy) { return m_document.String(s, length, copy); }
  bool Key(Ch const* s, rapidjson::SizeType length, bool copy) { return m_document.Key(s, length, copy); }
  bool StartObject() { return m_document.StartObject(); }
  bool EndObject(rapidjson::SizeType members) { return m_document.EndObject(members); }
  bool StartArray() { return m_document.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return m_document.EndArray(elements); }

private:
  Document& m_document;
};

// Parses UTF-8 `text` into `document` as document.Parse<Flags>(text) would,
// with numbers converted exactly. The document's own HasParseError() is not
// set: the result says whether, and where, the text is not JSON (on an error
// the document keeps its previous value). Works with any GenericDocument
// (own allocators too).
template <unsigned Flags, typename Document>
[[nodiscard]] rapidjson::ParseResult ParseFullPrecision(Document& document, std::string_view text) {
  // In situ parsing would need writable text; the number flags are this
  // function's to set.
  static_assert((Flags & (rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag |
                          rapidjson::kParseFullPrecisionFlag)) == 0,
                "ParseFullPrecision sets the number flags itself and does not parse in situ");
  rapidjson::ParseResult result;
  auto generate = [&](Document& target) {
    rapidjson::MemoryStream memory(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> input(memory);
    ExactNumberHandler<Document> handler(target);
    rapidjson::GenericReader<rapidjson::UTF8<>, typename Document::EncodingType> reader;
    result = reader.template Parse<Flags | rapidjson::kParseNumbersAsStringsFlag>(input, handler);
    return !result.IsError();
  };
  document.Populate(generate);
  return result;
}

}  // namespace docshard::detail
