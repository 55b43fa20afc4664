#include "fan_out_token.hpp"

#include "core/json_depth.hpp"
#include "docshard/core/errors.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace docshard::client::detail {

namespace {
constexpr char Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

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

[[noreturn]] void Invalid(std::string const& why) { throw InvalidArgumentError("invalid continuation token: " + why); }

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
}  // namespace

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
  auto str = [&](std::string const& s) { w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size())); };
  w.StartObject();
  w.Key("v");
  w.Uint(2);
  w.Key("h");
  w.Uint64(Binding);
  w.Key("e");
  w.Int64(Epoch);
  w.Key("m");
  w.Bool(Materialized);
  w.Key("n");
  w.Uint64(Consumed);
  w.Key("d");
  str(LastDistinct);
  w.Key("s");
  w.StartArray();
  for (auto const& s : Streams) {
    w.StartArray();
    w.Uint64(s.Target.Collection);
    str(s.Target.RangeId);
    str(s.Target.Min);
    str(s.Target.Max);
    str(s.Target.RangeMin);
    str(s.Target.RangeMax);
    str(s.Target.PartitionKeyJson);
    str(s.Token);
    w.Int(s.PageSize);
    w.Uint64(s.Skip);
    str(s.LastKeyJson);
    w.StartArray();
    for (auto const& rid : s.TieRids) str(rid);
    w.EndArray();
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
  if ((buffer.GetSize() + 2) / 3 * 4 > MaxTokenBytes)
    throw Error(ErrorCode::Internal, "the continuation of this fan-out would hold " + std::to_string(Streams.size()) +
                                         " streams in " + std::to_string(buffer.GetSize()) +
                                         " bytes, over the 1 MiB bound: read it without MaxItems, or narrow it");
  return Base64UrlEncode(std::string_view(buffer.GetString(), buffer.GetSize()));
}

FanOutToken FanOutToken::Decode(std::string_view text) {
  if (text.empty()) Invalid("empty");
  if (text.size() > MaxTokenBytes) Invalid("too long");
  auto json = Base64UrlDecode(text);
  // Callers hand back whatever they kept; a real token nests 4 levels.
  if (docshard::detail::JsonDepthExceeds(json, 8)) Invalid("nested too deeply");
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) Invalid("not a docshard token");
  auto get = [&](char const* name) -> rapidjson::Value const& {
    auto it = doc.FindMember(name);
    if (it == doc.MemberEnd()) Invalid(std::string("missing ") + name);
    return it->value;
  };
  if (!get("v").IsUint() || get("v").GetUint() != 2)
    Invalid("it was made by another docshard version (restart the query)");
  if (!get("h").IsUint64() || !get("e").IsInt64() || !get("m").IsBool() || !get("n").IsUint64() ||
      !get("d").IsString() || !get("s").IsArray())
    Invalid("wrong field types");
  FanOutToken token;
  token.Binding = get("h").GetUint64();
  token.Epoch = get("e").GetInt64();
  token.Materialized = get("m").GetBool();
  token.Consumed = get("n").GetUint64();
  token.LastDistinct.assign(get("d").GetString(), get("d").GetStringLength());
  auto text_of = [](rapidjson::Value const& v) { return std::string(v.GetString(), v.GetStringLength()); };
  for (auto const& c : get("s").GetArray()) {
    if (!c.IsArray() || c.Size() != 12 || !c[0].IsUint64() || !c[8].IsInt() || c[8].GetInt() < 0 || !c[9].IsUint64() ||
        !c[11].IsArray())
      Invalid("bad stream entry");
    for (rapidjson::SizeType i : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 10u})
      if (!c[i].IsString()) Invalid("bad stream entry");
    StreamState s;
    s.Target.Collection = static_cast<std::size_t>(c[0].GetUint64());
    s.Target.RangeId = text_of(c[1]);
    s.Target.Min = text_of(c[2]);
    s.Target.Max = text_of(c[3]);
    s.Target.RangeMin = text_of(c[4]);
    s.Target.RangeMax = text_of(c[5]);
    s.Target.PartitionKeyJson = text_of(c[6]);
    s.Token = text_of(c[7]);
    s.PageSize = c[8].GetInt();
    s.Skip = c[9].GetUint64();
    s.LastKeyJson = text_of(c[10]);
    for (auto const& rid : c[11].GetArray()) {
      if (!rid.IsString()) Invalid("bad stream entry");
      s.TieRids.push_back(text_of(rid));
    }
    token.Streams.push_back(std::move(s));
  }
  return token;
}

}  // namespace docshard::client::detail
