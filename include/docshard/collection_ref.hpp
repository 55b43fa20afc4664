#pragma once
// A reference to a collection: `dbs/<db>/colls/<coll>` on the default account
// or `<account>:dbs/<db>/colls/<coll>`. A cheap-to-copy handle; the ring
// hashes Text() exactly as written.
#include "docshard/export.hpp"
#include <memory>
#include <string>
#include <string_view>

namespace docshard {

class DOCSHARD_API CollectionRef {
public:
  static constexpr std::string_view DefaultAccount = "default";

  // Throws InvalidArgumentError naming the bad text.
  static CollectionRef Parse(std::string_view text);
  CollectionRef() = default;

  std::string const& Text() const noexcept { return m_data->Text; }
  std::string const& Account() const noexcept { return m_data->Account; }     // "default" when unprefixed
  std::string const& Link() const noexcept { return m_data->Link; }           // dbs/<db>/colls/<coll>
  std::string const& Database() const noexcept { return m_data->Database; }
  std::string const& Collection() const noexcept { return m_data->Collection; }
  bool HasExplicitAccount() const noexcept { return m_data->ExplicitAccount; }
  bool IsValid() const noexcept { return m_data != nullptr; }

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

} // namespace docshard
