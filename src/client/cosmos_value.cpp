#include "cosmos_value.hpp"

#include "core/json_string.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace docshard::client::detail {

namespace {
int Rank(rapidjson::Value const* v) {
  if (!v) return 0;
  switch (v->GetType()) {
  case rapidjson::kNullType: return 1;
  case rapidjson::kFalseType: return 2;
  case rapidjson::kTrueType: return 3;
  case rapidjson::kNumberType: return 4;
  case rapidjson::kStringType: return 5;
  case rapidjson::kArrayType: return 6;
  case rapidjson::kObjectType: return 7;
  }
  return 8;
}

// UTF-16 code units of UTF-8 text. Invalid bytes stand for themselves, so
// any input has a total order.
std::u16string Utf16(std::string_view s) {
  std::u16string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto const b = static_cast<unsigned char>(s[i]);
    auto cont = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i + k]) & 0x3Fu); };
    std::uint32_t cp = b;
    std::size_t len = 1;
    if (b >= 0xF0 && i + 3 < s.size()) {
      cp = ((b & 0x07u) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
      len = 4;
    } else if (b >= 0xE0 && b < 0xF0 && i + 2 < s.size()) {
      cp = ((b & 0x0Fu) << 12) | (cont(1) << 6) | cont(2);
      len = 3;
    } else if (b >= 0xC0 && b < 0xE0 && i + 1 < s.size()) {
      cp = ((b & 0x1Fu) << 6) | cont(1);
      len = 2;
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out += static_cast<char16_t>(0xD800 + (cp >> 10));
      out += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
    } else {
      out += static_cast<char16_t>(cp);
    }
  }
  return out;
}

int CompareUtf16(std::string_view a, std::string_view b) {
  // UTF-8 byte order is code point order; UTF-16 order differs from it only
  // where a supplementary character (lead byte F0-F4) meets U+E000-U+FFFF
  // (lead byte EE or EF). Without such bytes the byte order is the answer.
  auto special = [](std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xEE; });
  };
  int c = 0;
  if (special(a) && special(b)) {
    auto x = Utf16(a), y = Utf16(b);
    c = x.compare(y);
  } else {
    c = a.compare(b);
  }
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

void AppendNumber(std::string& out, rapidjson::Value const& v) {
  double d = v.GetDouble();
  if (d == 0) d = 0;  // -0 and 0 are one value
  char buffer[32];
  if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 1e21) {
    // Integral values print without exponent or fraction, as JavaScript does.
    auto r = std::to_chars(buffer, buffer + sizeof buffer, d, std::chars_format::fixed);
    out.append(buffer, r.ptr);
    return;
  }
  auto r = std::to_chars(buffer, buffer + sizeof buffer, d);
  out.append(buffer, r.ptr);
}
}  // namespace

int CompareCosmosValues(rapidjson::Value const* a, rapidjson::Value const* b) {
  int ra = Rank(a), rb = Rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (!a) return 0;
  switch (a->GetType()) {
  case rapidjson::kNumberType: {
    double x = a->GetDouble(), y = b->GetDouble();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  case rapidjson::kStringType:
    return CompareUtf16(std::string_view(a->GetString(), a->GetStringLength()),
                        std::string_view(b->GetString(), b->GetStringLength()));
  case rapidjson::kArrayType: {
    auto n = std::min(a->Size(), b->Size());
    for (rapidjson::SizeType i = 0; i < n; ++i)
      if (int c = CompareCosmosValues(&(*a)[i], &(*b)[i]); c != 0) return c;
    return a->Size() == b->Size() ? 0 : (a->Size() < b->Size() ? -1 : 1);
  }
  case rapidjson::kObjectType: {
    auto x = CanonicalJson(*a), y = CanonicalJson(*b);
    return x == y ? 0 : (x < y ? -1 : 1);
  }
  default: return 0;  // null, false, true: rank says it all
  }
}

void AppendCanonicalJson(std::string& out, rapidjson::Value const& value) {
  switch (value.GetType()) {
  case rapidjson::kNullType: out += "null"; return;
  case rapidjson::kFalseType: out += "false"; return;
  case rapidjson::kTrueType: out += "true"; return;
  case rapidjson::kNumberType: AppendNumber(out, value); return;
  case rapidjson::kStringType:
    docshard::detail::AppendJsonString(out, std::string_view(value.GetString(), value.GetStringLength()));
    return;
  case rapidjson::kArrayType: {
    out += '[';
    bool first = true;
    for (auto const& e : value.GetArray()) {
      if (!first) out += ',';
      first = false;
      AppendCanonicalJson(out, e);
    }
    out += ']';
    return;
  }
  case rapidjson::kObjectType: {
    std::vector<rapidjson::Value::ConstMemberIterator> members;
    for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) members.push_back(it);
    std::sort(members.begin(), members.end(), [](auto const& x, auto const& y) {
      return std::string_view(x->name.GetString(), x->name.GetStringLength()) <
             std::string_view(y->name.GetString(), y->name.GetStringLength());
    });
    out += '{';
    bool first = true;
    for (auto const& m : members) {
      if (!first) out += ',';
      first = false;
      docshard::detail::AppendJsonString(out, std::string_view(m->name.GetString(), m->name.GetStringLength()));
      out += ':';
      AppendCanonicalJson(out, m->value);
    }
    out += '}';
    return;
  }
  }
}

std::string CanonicalJson(rapidjson::Value const& value) {
  std::string out;
  AppendCanonicalJson(out, value);
  return out;
}

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  static constexpr char Hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += Hex[digest[i] >> 4];
    out += Hex[digest[i] & 15];
  }
  return out;
}

}  // namespace docshard::client::detail
