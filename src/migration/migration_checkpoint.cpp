#include "docshard/migration/migration_checkpoint.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/resolvers/partition_scheme.hpp"

#include <openssl/evp.h>
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace docshard::migration {

namespace {

std::uint64_t GetCount(rapidjson::Value const& object, char const* name, std::string const& place) {
  auto const it = object.FindMember(name);
  if (it == object.MemberEnd()) return 0;
  if (!it->value.IsUint64()) throw ConfigError(place + "." + name, "expected a non-negative integer");
  return it->value.GetUint64();
}

std::string GetString(rapidjson::Value const& object, char const* name, std::string const& place) {
  auto const it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) throw ConfigError(place + "." + name, "expected a string");
  return {it->value.GetString(), it->value.GetStringLength()};
}

}  // namespace

std::string SchemeHash(IPartitionResolver const& resolver) {
  auto const text = resolvers::SaveResolverJson(resolver);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw Error(ErrorCode::Internal, "SHA-256 failed");
  static constexpr char Hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += Hex[digest[i] >> 4];
    out += Hex[digest[i] & 15];
  }
  return out;
}

std::string MigrationCheckpoint::ToJson() const {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("docshardMigration");
  w.Int(FormatVersion);
  w.Key("from");
  w.String(FromHash.c_str());
  w.Key("to");
  w.String(ToHash.c_str());
  w.Key("finished");
  w.Bool(Finished);
  w.Key("read");
  w.String(Read.c_str(), static_cast<rapidjson::SizeType>(Read.size()));
  w.Key("collections");
  w.StartArray();
  for (auto const& [name, c] : Collections) {
    w.StartObject();
    w.Key("collection");
    w.String(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
    w.Key("ranges");
    w.StartArray();
    for (auto const& r : c.Ranges) {
      w.StartObject();
      auto text = [&w](char const* key, std::string const& value) {
        w.Key(key);
        w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
      };
      text("range", r.RangeId);
      text("min", r.Min);
      text("max", r.Max);
      text("rangeMin", r.RangeMin);
      text("rangeMax", r.RangeMax);
      text("continuation", r.Continuation);
      w.Key("done");
      w.Bool(r.Done);
      w.EndObject();
    }
    w.EndArray();
    w.Key("done");
    w.Bool(c.Done);
    w.Key("scanned");
    w.Uint64(c.Scanned);
    w.Key("moved");
    w.Uint64(c.Moved);
    w.Key("skipped");
    w.Uint64(c.Skipped);
    w.Key("keptNewer");
    w.Uint64(c.KeptNewer);
    w.Key("recopied");
    w.Uint64(c.Recopied);
    w.Key("unresurrected");
    w.Uint64(c.Unresurrected);
    w.Key("leftInPlace");
    w.Uint64(c.LeftInPlace);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

void MigrationCheckpoint::Save(std::filesystem::path const& path) const { WriteFileAtomically(path, ToJson()); }

std::optional<MigrationCheckpoint> MigrationCheckpoint::TryLoad(std::filesystem::path const& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  return Load(path);
}

MigrationCheckpoint MigrationCheckpoint::Load(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), "cannot read the checkpoint");
  std::ostringstream text;
  text << in.rdbuf();
  auto const s = text.str();
  rapidjson::Document doc;
  doc.Parse(s.data(), s.size());
  std::string const place = path.string();
  if (doc.HasParseError() || !doc.IsObject()) throw ConfigError(place, "the checkpoint is not a JSON object");
  auto const version = doc.FindMember("docshardMigration");
  if (version == doc.MemberEnd() || !version->value.IsInt() ||
      (version->value.GetInt() != 1 && version->value.GetInt() != FormatVersion))
    throw ConfigError(place + ".docshardMigration",
                      "not a docshard migration checkpoint of version 1 or " + std::to_string(FormatVersion));
  bool const perRange = version->value.GetInt() >= 2;
  MigrationCheckpoint cp;
  cp.FromHash = GetString(doc, "from", place);
  cp.ToHash = GetString(doc, "to", place);
  auto const finished = doc.FindMember("finished");
  cp.Finished = finished != doc.MemberEnd() && finished->value.IsBool() && finished->value.GetBool();
  if (doc.HasMember("read")) {
    cp.Read = GetString(doc, "read", place);
    if (cp.Read != "scan" && cp.Read != "arcs")
      throw ConfigError(place + ".read", "expected \"scan\" or \"arcs\", got \"" + cp.Read + "\"");
  }
  auto const collections = doc.FindMember("collections");
  if (collections == doc.MemberEnd() || !collections->value.IsArray())
    throw ConfigError(place + ".collections", "expected an array");
  std::size_t i = 0;
  for (auto const& item : collections->value.GetArray()) {
    auto const at = place + ".collections[" + std::to_string(i++) + "]";
    if (!item.IsObject()) throw ConfigError(at, "expected an object");
    CollectionCheckpoint c;
    auto const name = GetString(item, "collection", at);
    auto const done = item.FindMember("done");
    c.Done = done != item.MemberEnd() && done->value.IsBool() && done->value.GetBool();
    if (perRange) {
      auto const ranges = item.FindMember("ranges");
      if (ranges == item.MemberEnd() || !ranges->value.IsArray())
        throw ConfigError(at + ".ranges", "expected an array");
      std::size_t j = 0;
      for (auto const& r : ranges->value.GetArray()) {
        auto const rat = at + ".ranges[" + std::to_string(j++) + "]";
        if (!r.IsObject()) throw ConfigError(rat, "expected an object");
        cosmos::RangeStream stream;
        stream.RangeId = GetString(r, "range", rat);
        stream.Min = GetString(r, "min", rat);
        stream.Max = GetString(r, "max", rat);
        stream.RangeMin = GetString(r, "rangeMin", rat);
        stream.RangeMax = GetString(r, "rangeMax", rat);
        stream.Continuation = GetString(r, "continuation", rat);
        if (!(stream.Min < stream.Max)) throw ConfigError(rat, "min must be below max");
        for (auto const& other : c.Ranges)
          if (stream.Min < other.Max && other.Min < stream.Max) throw ConfigError(rat, "overlaps another range's span");
        auto const rangeDone = r.FindMember("done");
        stream.Done = rangeDone != r.MemberEnd() && rangeDone->value.IsBool() && rangeDone->value.GetBool();
        c.Ranges.push_back(std::move(stream));
      }
    } else {
      GetString(item, "continuation", at);  // format 1: the whole collection's; not reusable per range
    }
    c.Scanned = GetCount(item, "scanned", at);
    c.Moved = GetCount(item, "moved", at);
    c.Skipped = GetCount(item, "skipped", at);
    c.KeptNewer = GetCount(item, "keptNewer", at);
    c.Recopied = GetCount(item, "recopied", at);
    c.Unresurrected = GetCount(item, "unresurrected", at);
    c.LeftInPlace = GetCount(item, "leftInPlace", at);
    if (!perRange && !c.Done) {
      // Format 1, source unfinished: it is scanned again from the start on
      // every range. Moved documents are gone from it; the ones left in place
      // are read and skipped (or left) again, so they are not counted twice.
      c.Scanned -= std::min(c.Scanned, c.Skipped + c.LeftInPlace);
      c.Skipped = 0;
      c.LeftInPlace = 0;
    }
    cp.Collections[name] = std::move(c);
  }
  return cp;
}

}  // namespace docshard::migration
