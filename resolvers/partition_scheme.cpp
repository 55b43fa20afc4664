#include "docshard/resolvers/partition_scheme.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/json_writer.hpp"
#include "docshard/rapidjson_interop.hpp"

#include "core/full_precision_json.hpp"
#include "core/json_depth.hpp"
#include "core/region_name.hpp"

#include <rapidjson/error/en.h>

#include <fstream>
#include <sstream>

namespace docshard::resolvers {

namespace {
AccountConfig LoadAccount(ConfigNode const& node) {
  node.ExpectObject();
  // Secrets never live in a config file, and TLS verification cannot be
  // switched off from one: say so instead of a generic "unknown field".
  for (auto bad : {"key", "masterKey", "accountKey", "secret"})
    if (node.Has(bad)) node.Child(bad).Fail("secrets are not allowed in a config file; use keyEnv or keyFile");
  // Saying that verification is on ("verifyTls": true) is accepted and
  // changes nothing (it always is; the normalised config leaves it out);
  // anything that would turn it off is refused.
  struct TlsSwitch {
    char const* Name;
    bool VerifyingValue;  // the value that keeps verification on
  };
  static constexpr TlsSwitch Switches[] = {
      {"verifyTls", true}, {"tlsVerify", true}, {"insecure", false}, {"disableTlsVerification", false}};
  for (auto const& s : Switches) {
    if (!node.Has(s.Name)) continue;
    auto const child = node.Child(s.Name);
    if (!child.Value().IsBool() || child.Value().GetBool() != s.VerifyingValue)
      child.Fail(std::string("TLS verification cannot be disabled from a config file (only ") +
                 (s.VerifyingValue ? "true" : "false") + " is accepted here: it is always on)");
  }
  node.AllowOnly({"endpoint", "keyEnv", "keyFile", "caFile", "preferredRegions", "verifyTls", "tlsVerify", "insecure",
                  "disableTlsVerification"});
  AccountConfig account;
  auto endpoint = node.Child("endpoint");
  account.Endpoint = endpoint.GetNonEmptyString();
  if (account.Endpoint.rfind("https://", 0) != 0 || account.Endpoint.size() <= 8)
    endpoint.Fail("must be an https:// URL, got \"" + account.Endpoint + "\"");
  if (auto c = node.OptionalChild("keyEnv")) account.KeyEnv = c->GetNonEmptyString();
  if (auto c = node.OptionalChild("keyFile")) account.KeyFile = c->GetNonEmptyString();
  if (auto c = node.OptionalChild("caFile")) account.CaFile = c->GetNonEmptyString();
  if (account.KeyEnv.empty() == account.KeyFile.empty())
    node.Fail("exactly one of \"keyEnv\" and \"keyFile\" is required");
  if (auto regions = node.OptionalChild("preferredRegions")) {
    if (!regions->Value().IsArray()) regions->FailType("an array of region names");
    auto const elements = regions->Elements();
    for (std::size_t i = 0; i < elements.size(); ++i) {
      auto const& element = elements[i];
      if (!element.Value().IsString()) element.FailType("a region name (string)");
      auto name = element.GetString();
      if (auto problem = detail::RegionNameProblem(name); !problem.empty()) element.Fail("region name " + problem);
      for (std::size_t j = 0; j < i; ++j)
        if (detail::RegionKey(account.PreferredRegions[j]) == detail::RegionKey(name))
          element.Fail("\"" + name + "\" is the same region as " + elements[j].Place() + " \"" +
                       account.PreferredRegions[j] + "\" (region names match with case and spaces ignored)");
      account.PreferredRegions.push_back(std::move(name));
    }
  }
  return account;
}

// A saved scheme or resolver: the pretty text and a final newline. Throws
// InvalidArgumentError naming the resolver type when its WriteJson left the
// value incomplete (a user-defined resolver that does not close its object).
std::string SavedText(JsonWriter const& writer, IPartitionResolver const& resolver) {
  if (!writer.IsComplete())
    throw InvalidArgumentError("resolver type \"" + resolver.Type() + "\": WriteJson left its JSON value incomplete");
  return writer.Text() + "\n";
}

// "line L column C" of a byte offset: what an operator can find in an editor.
std::string LineColumn(std::string_view json, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < json.size(); ++i) {
    if (json[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + " column " + std::to_string(column);
}
}  // namespace

PartitionScheme::PartitionScheme(ResolverPtr resolver, std::optional<std::int64_t> epoch,
                                 std::map<std::string, AccountConfig> accounts)
    : m_resolver(std::move(resolver)), m_epoch(epoch), m_accounts(std::move(accounts)) {
  if (!m_resolver) throw InvalidArgumentError("PartitionScheme: no resolver");
  if (m_epoch && *m_epoch < 0) throw InvalidArgumentError("PartitionScheme: epoch must be >= 0");
}

PartitionScheme PartitionScheme::Load(std::string_view json, ResolverRegistry const& registry) {
  // RapidJSON takes a NUL byte for the end of the text, so a valid prefix
  // would load; a NUL is never part of JSON text (strings escape it).
  if (auto const nul = json.find('\0'); nul != std::string_view::npos)
    throw ConfigError(LineColumn(json, nul), "invalid JSON: NUL byte");
  rapidjson::Document doc;
  // Full precision so that number bounds and keys load exactly as saved;
  // iterative so that deeply nested input is an error, not a stack overflow.
  auto const parsed =
      detail::ParseFullPrecision<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(doc, json);
  if (parsed.IsError())
    throw ConfigError(LineColumn(json, parsed.Offset()),
                      std::string("invalid JSON: ") + rapidjson::GetParseError_En(parsed.Code()));
  // The parse is iterative, but loading nested resolvers, copying templates
  // and saving recurse once per level: no real scheme comes near the bound.
  if (auto const at = detail::JsonDepthExceededAt(json))
    throw ConfigError(LineColumn(json, *at), "nests deeper than " + std::to_string(detail::MaxJsonDepth) + " levels");
  ConfigLoadContext context;
  context.Registry = &registry;
  ConfigNode root(doc, "", context);
  if (!doc.IsObject()) throw ConfigError("(root)", "expected an object, got " + DescribeJson(doc));
  root.AllowOnly({"docshard", "epoch", "accounts", "resolver"});

  auto version = root.Child("docshard");
  auto v = version.GetInteger(1, std::numeric_limits<int>::max());
  if (v > FormatVersion)
    version.Fail("format version " + std::to_string(v) + " is newer than this library supports (" +
                 std::to_string(FormatVersion) + ")");

  std::optional<std::int64_t> epoch;
  if (auto e = root.OptionalChild("epoch")) epoch = e->GetInteger(0, std::numeric_limits<std::int64_t>::max());

  std::map<std::string, AccountConfig> accounts;
  if (auto a = root.OptionalChild("accounts")) {
    a->ExpectObject();
    std::set<std::string> names;
    for (auto const& m : JsonInterop::Value(a->Value()).GetObject()) {
      std::string name(m.name.GetString(), m.name.GetStringLength());
      ConfigNode child(m.value, a->Place() + "." + name, context);
      if (names.count(name)) child.Fail("duplicate account \"" + name + "\"");
      try {
        (void)CollectionRef::Parse(name + ":dbs/x/colls/y");
      } catch (Error const&) {
        child.Fail("bad account name (letters, digits, '-', '_')");
      }
      accounts.emplace(name, LoadAccount(child));
      names.insert(name);
    }
    context.Accounts = std::move(names);
  }

  auto resolver = root.Child("resolver").GetResolver();
  if (!resolver->KeyPath()) root.Child("resolver").Fail("missing required field \"partitionKey\"");
  return PartitionScheme(std::move(resolver), epoch, std::move(accounts));
}

PartitionScheme PartitionScheme::LoadFile(std::filesystem::path const& path, ResolverRegistry const& registry) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path.string(), "cannot open the config file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path.string(), "cannot read the config file");
  return Load(text.str(), registry);
}

std::string PartitionScheme::Save() const {
  // Never write a file Load would refuse (the same rule as
  // ConfigNode::GetCollection): a scheme built in code can name accounts
  // it does not describe, and that should fail here, not at the next start.
  for (auto const& c : m_resolver->Collections()) {
    bool const known = m_accounts.empty() ? !c.HasExplicitAccount() : m_accounts.count(c.Account()) > 0;
    if (!known)
      throw InvalidArgumentError("cannot save the scheme: collection " + c.Text() + " is on account \"" + c.Account() +
                                 "\", which " +
                                 (m_accounts.empty() ? std::string("needs an \"accounts\" entry (the scheme has none)")
                                                     : std::string("is not among the scheme's accounts")));
  }
  JsonWriter writer(JsonWriter::Style::Pretty);
  writer.BeginObject();
  writer.Key("docshard").Int(FormatVersion);
  if (m_epoch) writer.Key("epoch").Int(static_cast<std::int64_t>(*m_epoch));
  if (!m_accounts.empty()) {
    writer.Key("accounts").BeginObject();
    for (auto const& [name, acc] : m_accounts) {
      writer.Key(name).BeginObject();
      writer.Key("endpoint").String(acc.Endpoint);
      if (!acc.KeyEnv.empty()) writer.Key("keyEnv").String(acc.KeyEnv);
      if (!acc.KeyFile.empty()) writer.Key("keyFile").String(acc.KeyFile);
      if (!acc.CaFile.empty()) writer.Key("caFile").String(acc.CaFile);
      if (!acc.PreferredRegions.empty()) {
        writer.Key("preferredRegions").BeginArray();
        for (auto const& region : acc.PreferredRegions) writer.String(region);
        writer.EndArray();
      }
      writer.EndObject();
    }
    writer.EndObject();
  }
  m_resolver->WriteJson(writer.Key("resolver"));
  writer.EndObject();
  return SavedText(writer, *m_resolver);
}

std::string SaveResolverJson(IPartitionResolver const& resolver) {
  JsonWriter writer(JsonWriter::Style::Pretty);
  resolver.WriteJson(writer);
  return SavedText(writer, resolver);
}

}  // namespace docshard::resolvers
