#include "fan_out_token.hpp"

#include "docshard/errors.hpp"
#include "core/json_depth.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace docshard::detail {

namespace {
constexpr char Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::size_t MaxTokenBytes = 1 << 20;

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    std::uint32_t v = (static_cast<std::uint8_t>(in[i]) << 16) | (static_cast<std::uint8_t>(in[i + 1]) << 8) |
                      static_cast<std::uint8_t>(in[i + 2]);
    out += Alphabet[(v >> 18) & 63];
    out += Alphabet[(v >> 12) & 63];
    out += Alphabet[(v >> 6) & 63];
    out += Alphabet[v & 63];
  }
  if (std::size_t rest = in.size() - i; rest > 0) {
    std::uint32_t v = static_cast<std::uint8_t>(in[i]) << 16;
    if (rest == 2) v |= static_cast<std::uint8_t>(in[i + 1]) << 8;
    out += Alphabet[(v >> 18) & 63];
    out += Alphabet[(v >> 12) & 63];
    if (rest == 2) out += Alphabet[(v >> 6) & 63];
  }
  return out;
}

[[noreturn]] void Invalid(std::string const& why) {
  throw InvalidArgumentError("invalid continuation token: " + why);
}

std::string Base64UrlDecode(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
  };
  if (in.size() % 4 == 1) Invalid("bad length");
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = value(c);
    if (v < 0) Invalid("not base64url");
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}
} // namespace

std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t seed) noexcept {
  std::uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string FanOutToken::Encode() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("v");
  w.Uint(1);
  w.Key("h");
  w.Uint64(QueryHash);
  w.Key("e");
  w.Uint64(Emitted);
  w.Key("c");
  w.StartArray();
  for (auto const& c : Cursors) {
    w.StartArray();
    w.String(c.PageToken.c_str(), static_cast<rapidjson::SizeType>(c.PageToken.size()));
    w.Uint64(c.Skip);
    w.Bool(c.Done);
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
  return Base64UrlEncode(std::string_view(buffer.GetString(), buffer.GetSize()));
}

FanOutToken FanOutToken::Decode(std::string_view text) {
  if (text.empty()) Invalid("empty");
  if (text.size() > MaxTokenBytes) Invalid("too long");
  auto json = Base64UrlDecode(text);
  // Callers hand back whatever they kept; a real token nests 3 levels.
  if (JsonDepthExceeds(json, 8)) Invalid("nested too deeply");
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) Invalid("not a docshard token");
  auto get = [&](char const* name) -> rapidjson::Value const& {
    auto it = doc.FindMember(name);
    if (it == doc.MemberEnd()) Invalid(std::string("missing ") + name);
    return it->value;
  };
  if (!get("v").IsUint() || get("v").GetUint() != 1) Invalid("unknown version");
  if (!get("h").IsUint64() || !get("e").IsUint64() || !get("c").IsArray()) Invalid("wrong field types");
  FanOutToken token;
  token.QueryHash = get("h").GetUint64();
  token.Emitted = get("e").GetUint64();
  for (auto const& c : get("c").GetArray()) {
    if (!c.IsArray() || c.Size() != 3 || !c[0].IsString() || !c[1].IsUint64() || !c[2].IsBool())
      Invalid("bad cursor entry");
    token.Cursors.push_back({std::string(c[0].GetString(), c[0].GetStringLength()), c[1].GetUint64(), c[2].GetBool()});
  }
  return token;
}

} // namespace docshard::detail
