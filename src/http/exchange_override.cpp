#include "http/exchange_override.hpp"

#include <utility>

namespace docshard::http::detail {

namespace {
thread_local std::shared_ptr<IExchange> t_override;
}  // namespace

ScopedExchangeOverride::ScopedExchangeOverride(std::shared_ptr<IExchange> exchange)
    : m_previous(std::exchange(t_override, std::move(exchange))) {}

ScopedExchangeOverride::~ScopedExchangeOverride() { t_override = std::move(m_previous); }

std::shared_ptr<IExchange> CurrentExchangeOverride() { return t_override; }

}  // namespace docshard::http::detail
