// `docshard route`: where does each key live? Streams: one line in, one line
// out, constant memory, and fast enough to pipe millions of keys through.
#include "arguments.hpp"
#include "collection_index.hpp"
#include "command.hpp"
#include "json_text.hpp"
#include "key_line_parser.hpp"
#include "line_reader.hpp"
#include "output_buffer.hpp"
#include "resolver_description.hpp"
#include "scheme_file.hpp"

#include <docshard/core/errors.hpp>

#include <array>
#include <cstdio>
#include <optional>

namespace docshard::cli {

namespace {

// Turns keys into output lines. Everything after the echoed key is
// precomputed per collection, so a routed key costs one hash, one ring lookup
// and three memcpys.
class Router {
public:
  Router(ResolverPtr resolver, bool read) : m_resolver(std::move(resolver)), m_read(read), m_index(*m_resolver) {
    // The top-level hash resolver is the common case: route plain lines
    // straight on its ring, without building a PartitionKey.
    m_ring = m_resolver->HashRing();
    // A composite partitionKey takes arrays only: every line is checked.
    if (m_resolver->KeyPath() && m_resolver->KeyPath()->IsComposite()) m_ring = nullptr;
    for (auto const& c : m_index.Collections()) m_tails.push_back(Tail({c}));
  }

  // A key given as an argument: always a string.
  bool RouteArgument(std::string_view text, OutputBuffer& out) {
    std::optional<PartitionKey> key;
    try {
      key.emplace(std::string(text));
    } catch (docshard::Error const& e) {
      return Fail(JsonString(text), e.what(), out);  // not UTF-8: echoed with U+FFFD
    }
    // The key's own JSON, so an argument echoes exactly as the same key on stdin.
    std::string const echo = key->ToJson();
    try {
      return RouteKey(*key, echo, out);
    } catch (docshard::Error const& e) {
      return Fail(echo, e.what(), out);
    }
  }

  // One line of standard input. Returns false when it did not resolve; blank
  // lines are skipped (see the command's help).
  bool RouteLine(std::string_view line, bool truncated, OutputBuffer& out) {
    if (truncated) {
      return Fail(JsonString(line.substr(0, 64)),
                  "line longer than " + std::to_string(LineReader::MaxLineLength) + " bytes; not a partition key", out);
    }
    switch (m_parser.Parse(line)) {
    case KeyLineParser::Kind::Blank: return true;
    case KeyLineParser::Kind::Plain:
      if (m_ring != nullptr) {
        out.Append(KeyPrefix);
        out.Append(line);
        out.Append(m_tails[m_ring->OwnerOfKey(m_parser.PlainBytes())]);
        return true;
      }
      [[fallthrough]];
    case KeyLineParser::Kind::Key: {
      try {
        return RouteKey(m_parser.Key(), m_parser.Echo(), out);
      } catch (docshard::Error const& e) {
        return Fail(m_parser.Echo(), e.what(), out);
      }
    }
    case KeyLineParser::Kind::Invalid: return Fail(m_parser.Echo(), m_parser.Error(), out);
    }
    return false;
  }

private:
  static constexpr std::string_view KeyPrefix = "{\"key\":";

  // Resolves before writing anything: a throw must not leave half a line.
  bool RouteKey(PartitionKey const& key, std::string_view echo, OutputBuffer& out) {
    if (auto const& path = m_resolver->KeyPath()) path->CheckKeyShape(key);
    if (!m_read) {
      std::size_t const i = m_index.IndexOf(m_resolver->ResolveForCreate(key));
      out.Append(KeyPrefix);
      out.Append(echo);
      out.Append(TailAt(i));
      return true;
    }
    auto const collections = m_resolver->ResolveForRead(ReadSelector::Key(key));
    out.Append(KeyPrefix);
    out.Append(echo);
    if (collections.size() == 1) {
      out.Append(TailAt(m_index.IndexOf(collections.front())));
    } else {
      out.Append(Tail(collections));
    }
    return true;
  }

  std::string const& TailAt(std::size_t i) {
    while (m_tails.size() <= i) m_tails.push_back(Tail({m_index.Collections()[m_tails.size()]}));
    return m_tails[i];
  }

  std::string Tail(std::vector<CollectionRef> const& collections) const {
    std::string tail = m_read ? ",\"collections\":[" : ",\"collection\":";
    for (std::size_t i = 0; i < collections.size(); ++i) {
      if (i) tail += ',';
      AppendJsonString(tail, collections[i].Text());
    }
    tail += m_read ? "]}\n" : "}\n";
    return tail;
  }

  bool Fail(std::string_view echo, std::string_view message, OutputBuffer& out) {
    std::string line(KeyPrefix);
    line += echo;
    line += ",\"error\":";
    AppendJsonString(line, message);
    line += "}\n";
    out.Append(line);
    return false;
  }

  ResolverPtr m_resolver;
  bool m_read;
  CollectionIndex m_index;
  ConsistentHashRing const* m_ring = nullptr;
  std::vector<std::string> m_tails;  // per collection index: `,"collection":"..."}\n`
  KeyLineParser m_parser;
};

constexpr std::array<OptionSpec, 2> Options = {{{"config", true}, {"read", false}}};

int Run(std::span<char const* const> args) {
  auto const arguments = Arguments::Parse(args, Options, SIZE_MAX);
  auto const scheme = LoadSchemeFile(arguments.Required("config"));
  Router router(scheme.Resolver(), arguments.Flag("read"));
  OutputBuffer out(stdout);
  bool allResolved = true;
  if (!arguments.Positionals().empty()) {
    for (auto const& key : arguments.Positionals()) allResolved &= router.RouteArgument(key, out);
  } else {
    LineReader reader(0, "standard input");
    std::string_view line;
    while (reader.Next(line)) allResolved &= router.RouteLine(line, reader.Truncated(), out);
  }
  out.Flush();
  return allResolved ? ExitOk : ExitFailed;
}

}  // namespace

Command const RouteCommand{
    "route",
    "route --config FILE [--read] [KEY ...]",
    "print the collection each key lives in",
    "Keys come from the arguments (each taken as a string) or, with none, from\n"
    "standard input: one JSON value per line (\"abc\", 42, [\"t1\",\"u9\"]). Lines\n"
    "holding only whitespace are skipped; a trailing \\r is ignored. A key has\n"
    "the partitionKey's shape: an array of one value per path for a composite\n"
    "one ([\"/a\",\"/b\"]), a string, number or boolean otherwise.\n"
    "\n"
    "One JSON line per key, in input order:\n"
    "  {\"key\":K,\"collection\":\"L\"}            where a new document goes\n"
    "  {\"key\":K,\"collections\":[\"L\",...]}     with --read: where to read (an empty\n"
    "                                          list when no collection can hold it)\n"
    "  {\"key\":K,\"error\":\"message\"}           a bad key (K: the line as a string\n"
    "                                          when it is not JSON)\n"
    "K is the key as canonical JSON (a key that is not Unicode: as given).\n"
    "\n"
    "Exit status: 0 every key resolved, 1 some key did not, 2 usage or config error.\n",
    &Run,
};

}  // namespace docshard::cli
