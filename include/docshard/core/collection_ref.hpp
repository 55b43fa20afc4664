#pragma once
// A reference to a collection: `dbs/<db>/colls/<coll>` on the default account
// or `<account>:dbs/<db>/colls/<coll>`. A cheap-to-copy handle; the ring
// hashes Text() exactly as written.
#include "docshard/export.hpp"
#include <memory>
#include <string>
#include <string_view>

namespace docshard {

// A collection a resolver routes to: `[account:]dbs/<db>/colls/<coll>`.
// Immutable and cheap to copy (shared data); equal when the texts are equal.
// A default-constructed ref is invalid (IsValid() false) and has no parts.
class DOCSHARD_API CollectionRef {
public:
  // The account of a reference written without an `account:` prefix.
  static constexpr std::string_view DefaultAccount = "default";

  // Throws InvalidArgumentError naming the bad text.
  static CollectionRef Parse(std::string_view text);
  // An invalid ref, for containers; only IsValid() and == may be called.
  CollectionRef() = default;

  // The text as parsed, e.g. `west:dbs/app/colls/users0`.
  std::string const& Text() const noexcept { return m_data->Text; }
  std::string const& Account() const noexcept { return m_data->Account; }        // "default" when unprefixed
  std::string const& Link() const noexcept { return m_data->Link; }              // dbs/<db>/colls/<coll>
  std::string const& Database() const noexcept { return m_data->Database; }      // <db>
  std::string const& Collection() const noexcept { return m_data->Collection; }  // <coll>
  // True when the text carries an `account:` prefix.
  bool HasExplicitAccount() const noexcept { return m_data->ExplicitAccount; }
  // False only for a default-constructed ref.
  bool IsValid() const noexcept { return m_data != nullptr; }

  // Same text (two invalid refs are equal).
  friend bool operator==(CollectionRef const& a, CollectionRef const& b) noexcept {
    return a.m_data == b.m_data || (a.m_data && b.m_data && a.m_data->Text == b.m_data->Text);
  }

private:
  struct Data {
    std::string Text, Account, Link, Database, Collection;
    bool ExplicitAccount = false;
  };
  std::shared_ptr<Data const> m_data;
};

}  // namespace docshard
