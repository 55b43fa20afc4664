#include "docshard/core/transition_state.hpp"

namespace docshard {

namespace {
struct ModeName {
  TransitionReadMode Mode;
  char const* Name;
};
constexpr ModeName Modes[] = {{TransitionReadMode::ReadCurrent, "ReadCurrent"},
                              {TransitionReadMode::ReadNext, "ReadNext"},
                              {TransitionReadMode::ReadBoth, "ReadBoth"},
                              {TransitionReadMode::ReadNextThenCurrent, "ReadNextThenCurrent"},
                              {TransitionReadMode::None, "None"}};
}  // namespace

char const* TransitionReadModeName(TransitionReadMode mode) noexcept {
  for (auto const& m : Modes)
    if (m.Mode == mode) return m.Name;
  return "?";
}

std::optional<TransitionReadMode> ParseTransitionReadMode(std::string_view name) noexcept {
  for (auto const& m : Modes)
    if (name == m.Name) return m.Mode;
  return std::nullopt;
}

}  // namespace docshard
