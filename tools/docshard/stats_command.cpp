// `docshard stats`: how balanced is a scheme? Hash rings are measured
// exactly from their points; sample keys show what real data would do.
#include "arguments.hpp"
#include "collection_index.hpp"
#include "command.hpp"
#include "json_text.hpp"
#include "resolver_description.hpp"
#include "sample_keys.hpp"
#include "scheme_file.hpp"
#include "svg_chart.hpp"

#include <docshard/core/resolver_visitor.hpp>
#include <docshard/core/ring_ownership.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>
#include <system_error>

namespace docshard::cli {

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(JsonWriter& w, std::string_view s) {
  // Through our escaper, not RapidJSON's, so invalid UTF-8 cannot reach the output.
  std::string const text = JsonString(s);
  w.RawValue(text.data(), text.size(), rapidjson::kStringType);
}
void WriteKey(JsonWriter& w, PartitionKey const& key) {
  std::string const text = key.ToJson();
  w.RawValue(text.data(), text.size(), rapidjson::kStringType);
}
void WriteNumber(JsonWriter& w, double v) {
  std::string const text = JsonNumber(v);
  w.RawValue(text.data(), text.size(), rapidjson::kNumberType);
}

double MaxOverMean(std::vector<double> const& values) {
  if (values.empty()) return 0;
  double sum = 0, max = 0;
  for (double v : values) {
    sum += v;
    max = std::max(max, v);
  }
  return sum > 0 ? max / (sum / static_cast<double>(values.size())) : 0;
}

std::vector<double> HashShares(ConsistentHashRing const& ring) {
  std::vector<double> shares;
  for (auto const& span : RingShares(ring)) shares.push_back(span.Fraction());
  return shares;
}

// The scheme as a tree, with what is exact about each node: a hash ring's
// shares, a range list, a lookup table's entries per target.
void DescribeJson(IPartitionResolver const& resolver, JsonWriter& w);

void TargetJson(ResolverTarget const& target, JsonWriter& w) {
  if (target.IsCollection()) {
    w.Key("collection");
    WriteString(w, target.Collection().Text());
  } else {
    w.Key("resolver");
    DescribeJson(*target.Resolver(), w);
  }
}

// Writes the members after "type" for any resolver, through Accept.
class JsonDescriber final : public IResolverVisitor {
public:
  explicit JsonDescriber(JsonWriter& w) : m_w(w) {}

  void VisitRing(IPartitionResolver const& resolver, ConsistentHashRing const& ring, std::string const& hashName,
                 std::uint32_t virtualNodesPerCollection) override {
    auto& w = m_w;
    w.Key("hash");
    WriteString(w, hashName);
    w.Key("virtualNodesPerCollection");
    w.Uint(virtualNodesPerCollection);
    auto const shares = HashShares(ring);
    auto const collections = resolver.Collections();
    w.Key("collections");
    w.StartArray();
    for (std::size_t i = 0; i < collections.size(); ++i) {
      w.StartObject();
      w.Key("collection");
      WriteString(w, collections[i].Text());
      w.Key("share");
      WriteNumber(w, shares[i]);
      w.EndObject();
    }
    w.EndArray();
    w.Key("shareMaxOverMean");
    WriteNumber(w, MaxOverMean(shares));
  }

  void VisitRanges(IPartitionResolver const&, KeyType keyType, std::span<RangeEntry const> ranges) override {
    auto& w = m_w;
    w.Key("keyType");
    WriteString(w, KeyTypeName(keyType));
    w.Key("ranges");
    w.StartArray();
    for (auto const& r : ranges) {
      w.StartObject();
      w.Key("low");
      WriteKey(w, r.Low);
      w.Key("high");
      WriteKey(w, r.High);
      TargetJson(r.Target, w);
      w.EndObject();
    }
    w.EndArray();
  }

  void VisitLookup(IPartitionResolver const& resolver, KeyType keyType, std::span<LookupEntry const> entries,
                   ResolverTarget const* defaultTarget) override {
    auto& w = m_w;
    w.Key("keyType");
    WriteString(w, KeyTypeName(keyType));
    w.Key("entries");
    w.Uint64(entries.size());
    // A lookup table may hold thousands of keys: count them per collection,
    // and list only the entries that lead to a nested resolver.
    CollectionIndex index(resolver);
    std::vector<std::uint64_t> perCollection(index.Size());
    for (auto const& e : entries) {
      if (!e.Target.IsCollection()) continue;
      auto const i = index.IndexOf(e.Target.Collection());
      perCollection.resize(index.Size());
      ++perCollection[i];
    }
    w.Key("entriesPerCollection");
    w.StartArray();
    for (std::size_t i = 0; i < index.Size(); ++i) {
      w.StartObject();
      w.Key("collection");
      WriteString(w, index.Collections()[i].Text());
      w.Key("entries");
      w.Uint64(perCollection[i]);
      w.EndObject();
    }
    w.EndArray();
    w.Key("nested");
    w.StartArray();
    for (auto const& e : entries) {
      if (e.Target.IsCollection()) continue;
      w.StartObject();
      w.Key("key");
      WriteKey(w, e.Key);
      TargetJson(e.Target, w);
      w.EndObject();
    }
    w.EndArray();
    if (defaultTarget != nullptr) {
      w.Key("default");
      w.StartObject();
      TargetJson(*defaultTarget, w);
      w.EndObject();
    }
  }

  void VisitOther(IPartitionResolver const& resolver) override {
    auto& w = m_w;
    w.Key("collections");
    w.StartArray();
    for (auto const& c : resolver.Collections()) WriteString(w, c.Text());
    w.EndArray();
  }

private:
  JsonWriter& m_w;
};

void DescribeJson(IPartitionResolver const& resolver, JsonWriter& w) {
  w.StartObject();
  w.Key("type");
  WriteString(w, resolver.Type());
  JsonDescriber describer(w);
  resolver.Accept(describer);
  w.EndObject();
}

void DescribeText(IPartitionResolver const& resolver, std::string const& indent, std::string& out);

void TargetText(ResolverTarget const& target, std::string const& indent, std::string& out) {
  if (target.IsCollection()) {
    out += target.Collection().Text() + "\n";
  } else {
    DescribeText(*target.Resolver(), indent, out);
  }
}

// Appends the lines after the short description for any resolver, through Accept.
class TextDescriber final : public IResolverVisitor {
public:
  TextDescriber(std::string const& indent, std::string& out) : m_indent(indent), m_out(out) {}

  void VisitRing(IPartitionResolver const& resolver, ConsistentHashRing const& ring, std::string const&,
                 std::uint32_t) override {
    auto const& indent = m_indent;
    auto& out = m_out;
    out += ", share of the hash space:\n";
    auto const shares = HashShares(ring);
    auto const collections = resolver.Collections();
    std::size_t width = 0;
    for (auto const& c : collections) width = std::max(width, c.Text().size());
    for (std::size_t i = 0; i < collections.size(); ++i) {
      out += indent + "  " + collections[i].Text() + std::string(width - collections[i].Text().size() + 2, ' ') +
             Percent(shares[i]) + "\n";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", MaxOverMean(shares));
    out += indent + "  max/mean " + buf + "\n";
  }

  void VisitRanges(IPartitionResolver const&, KeyType, std::span<RangeEntry const> ranges) override {
    auto const& indent = m_indent;
    auto& out = m_out;
    out += ":\n";
    for (auto const& r : ranges) {
      out += indent + "  [" + r.Low.ToJson() + ", " + r.High.ToJson() + "] -> ";
      TargetText(r.Target, indent + "    ", out);
    }
  }

  void VisitLookup(IPartitionResolver const& resolver, KeyType, std::span<LookupEntry const> entries,
                   ResolverTarget const* defaultTarget) override {
    auto const& indent = m_indent;
    auto& out = m_out;
    out += ":\n";
    CollectionIndex index(resolver);
    std::vector<std::uint64_t> perCollection(index.Size());
    for (auto const& e : entries) {
      if (e.Target.IsCollection()) {
        auto const i = index.IndexOf(e.Target.Collection());
        perCollection.resize(index.Size());
        ++perCollection[i];
      } else {
        out += indent + "  " + e.Key.ToJson() + " -> ";
        TargetText(e.Target, indent + "    ", out);
      }
    }
    for (std::size_t i = 0; i < index.Size(); ++i)
      if (perCollection[i] > 0)
        out += indent + "  " + std::to_string(perCollection[i]) +
               (perCollection[i] == 1 ? " entry -> " : " entries -> ") + index.Collections()[i].Text() + "\n";
    if (defaultTarget != nullptr) {
      out += indent + "  default -> ";
      TargetText(*defaultTarget, indent + "    ", out);
    }
  }

  void VisitOther(IPartitionResolver const&) override { m_out += "\n"; }

private:
  std::string const& m_indent;
  std::string& m_out;
};

void DescribeText(IPartitionResolver const& resolver, std::string const& indent, std::string& out) {
  out += ShortDescription(resolver);
  TextDescriber describer(indent, out);
  resolver.Accept(describer);
}

void WriteFile(std::string const& path, std::string const& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw std::system_error(errno, std::generic_category(), "cannot write " + path);
  file << text;
  file.close();
  if (!file) throw std::system_error(errno, std::generic_category(), "cannot write " + path);
}

constexpr std::array<OptionSpec, 4> Options = {{{"config", true}, {"keys", true}, {"svg", true}, {"json", false}}};

int Run(std::span<char const* const> args) {
  auto const arguments = Arguments::Parse(args, Options);
  auto const scheme = LoadSchemeFile(arguments.Required("config"));
  auto const& resolver = *scheme.Resolver();
  auto const topRing = RingOf(resolver);

  CollectionIndex index(resolver);
  std::optional<std::vector<double>> shares;
  if (topRing) shares = HashShares(*topRing->Ring);

  std::optional<SampleSummary> sample;
  std::vector<std::uint64_t> counts(index.Size());
  if (auto keysPath = arguments.Value("keys")) {
    sample = ReadSampleKeys(*keysPath, [&](PartitionKey const& key) {
      auto const i = index.IndexOf(resolver.ResolveForCreate(key));
      if (i >= counts.size()) counts.resize(index.Size());
      ++counts[i];
    });
  }
  counts.resize(index.Size());
  if (shares) shares->resize(index.Size(), 0.0);
  std::uint64_t resolved = 0;
  for (auto c : counts) resolved += c;
  std::vector<double> keyShares(index.Size());
  for (std::size_t i = 0; i < counts.size(); ++i)
    keyShares[i] = resolved > 0 ? static_cast<double>(counts[i]) / static_cast<double>(resolved) : 0.0;
  std::vector<double> countValues(counts.begin(), counts.end());

  std::string out;
  if (arguments.Flag("json")) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("scheme");
    DescribeJson(resolver, w);
    w.Key("collections");
    w.StartArray();
    for (std::size_t i = 0; i < index.Size(); ++i) {
      w.StartObject();
      w.Key("collection");
      WriteString(w, index.Collections()[i].Text());
      if (shares) {
        w.Key("share");
        WriteNumber(w, (*shares)[i]);
      }
      if (sample) {
        w.Key("keys");
        w.Uint64(counts[i]);
        w.Key("keyShare");
        WriteNumber(w, keyShares[i]);
      }
      w.EndObject();
    }
    w.EndArray();
    if (shares) {
      w.Key("shareMaxOverMean");
      WriteNumber(w, MaxOverMean(*shares));
    }
    if (sample) {
      w.Key("sample");
      w.StartObject();
      w.Key("keys");
      w.Uint64(sample->Keys);
      w.Key("resolved");
      w.Uint64(resolved);
      w.Key("failed");
      w.Uint64(sample->Failed);
      w.Key("max");
      w.Uint64(counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end()));
      w.Key("mean");
      WriteNumber(w, counts.empty() ? 0.0 : static_cast<double>(resolved) / static_cast<double>(counts.size()));
      w.Key("maxOverMean");
      WriteNumber(w, MaxOverMean(countValues));
      if (sample->Failed > 0) {
        w.Key("firstError");
        WriteString(w, sample->FirstError);
      }
      w.EndObject();
    }
    w.EndObject();
    out.assign(buffer.GetString(), buffer.GetSize());
    out += '\n';
  } else {
    out += "scheme: ";
    if (topRing) {
      out += ShortDescription(resolver) + "\n";
    } else {
      DescribeText(resolver, "", out);
    }
    out += "\n";
    if (!shares && !sample) {
      out += "collections:\n";
      for (auto const& c : index.Collections()) out += "  " + c.Text() + "\n";
      out += "\n(give sample keys with --keys FILE to see how keys spread over these collections)\n";
    }
    std::size_t width = 10;
    for (auto const& c : index.Collections()) width = std::max(width, c.Text().size());
    char buf[256];
    auto pad = [&](std::string const& s) { return s + std::string(width - s.size() + 2, ' '); };
    if (shares || sample) {
      out += pad("collection");
      if (shares) out += "  hash share";
      if (sample) out += "   sample keys   key share";
      out += "\n";
      for (std::size_t i = 0; i < index.Size(); ++i) {
        out += pad(index.Collections()[i].Text());
        if (shares) {
          std::snprintf(buf, sizeof buf, "  %10s", Percent((*shares)[i]).c_str());
          out += buf;
        }
        if (sample) {
          std::snprintf(buf, sizeof buf, "   %11llu  %10s", static_cast<unsigned long long>(counts[i]),
                        Percent(keyShares[i]).c_str());
          out += buf;
        }
        out += "\n";
      }
      out += pad("max/mean");
      if (shares) {
        std::snprintf(buf, sizeof buf, "  %10.4f", MaxOverMean(*shares));
        out += buf;
      }
      if (sample) {
        std::snprintf(buf, sizeof buf, "   %11s  %10.4f", "", MaxOverMean(countValues));
        out += buf;
      }
      out += "\n";
      if (sample) {
        out += "\nsample keys: " + std::to_string(sample->Keys) + ", resolved " + std::to_string(resolved) +
               ", failed " + std::to_string(sample->Failed) + "\n";
        if (sample->Failed > 0) out += "first failure: " + OneLine(sample->FirstError) + "\n";
      }
    }
  }

  if (auto svgPath = arguments.Value("svg")) {
    std::vector<std::string> labels;
    for (auto const& c : index.Collections()) labels.push_back(c.Text());
    std::vector<BarSeries> series;
    if (shares) series.push_back({"hash space share", "#4e79a7", *shares});
    if (sample) series.push_back({"sample key share", "#f28e2b", keyShares});
    WriteFile(*svgPath, RenderBarChart("docshard stats: " + ShortDescription(resolver), labels, series,
                                       "No exact shares for this scheme type: give sample keys with --keys FILE."));
  }

  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw std::system_error(errno, std::generic_category(), "writing output");
  if (sample && sample->Failed > 0) {
    std::fprintf(stderr, "docshard stats: %llu of %llu sample keys did not resolve; first: %s\n",
                 static_cast<unsigned long long>(sample->Failed), static_cast<unsigned long long>(sample->Keys),
                 OneLine(sample->FirstError).c_str());
    return ExitFailed;
  }
  return ExitOk;
}

}  // namespace

Command const StatsCommand{
    "stats",
    "stats --config FILE [--keys FILE] [--svg FILE] [--json]",
    "show how a scheme spreads the key space over its collections",
    "For a hash scheme: each collection's exact share of the hash space, from\n"
    "the ring's points (each point owns the arc up to the next point), and the\n"
    "max/mean ratio. For range and lookup schemes (and nested resolvers): the\n"
    "ranges and entries, and the shares of each nested ring.\n"
    "\n"
    "  --keys FILE  sample keys, one JSON value per line as for `route` (\"-\" is\n"
    "               standard input): how many land on each collection, max/mean\n"
    "  --svg FILE   also write a bar chart of the shares as SVG\n"
    "  --json       one JSON object instead of the table\n"
    "\n"
    "Exit status: 0, or 1 when some sample keys did not resolve (they are\n"
    "counted as failed), 2 on a usage or config error.\n",
    &Run,
};

}  // namespace docshard::cli
