#pragma once
// A cancellation emitted before a co_spawn'ed operation started.
//
// Boost 1.81's co_spawn entry point awaits the operation's coroutine with the
// cancellation state checked. An operation started off its I/O thread has its
// entry point posted there; a terminal cancellation emitted on that thread
// before the entry point ran (by a handler queued earlier) throws at that
// co_await, and since nothing was initiated yet, the entry point's guard post
// throws again, outside any handler: the exception leaves io_context::run and
// ends the process. (Later Asio turns throw_if_cancelled off before that
// post.) So such an operation gets an EarlyCancellation between the caller's
// slot and co_spawn's: a signal that arrives before the operation started is
// only recorded (the operation then fails with CancelledError at once), and
// from the start on signals are passed through. Emits and the start both run
// on the operation's I/O thread (the documented rule for cancellation), so
// the flags need no lock. An operation started on its own I/O thread needs
// none of this: co_spawn runs it inline up to its first asynchronous
// operation, before any other handler there can emit.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>

#include <memory>
#include <utility>

namespace docshard::cosmos::detail {

struct EarlyCancellation {
  boost::asio::cancellation_signal Inner;  // the slot co_spawn is given
  bool Started = false;                    // set on the I/O thread as the operation starts
  bool Cancelled = false;                  // a terminal cancellation came before that

  // The handler in the caller's slot.
  class Forward {
  public:
    explicit Forward(std::shared_ptr<EarlyCancellation> state) : m_state(std::move(state)) {}
    void operator()(boost::asio::cancellation_type type) const {
      if (m_state->Started)
        m_state->Inner.emit(type);
      else if ((type & boost::asio::cancellation_type::terminal) != boost::asio::cancellation_type::none)
        m_state->Cancelled = true;  // co_spawn's filter too: only terminal cancellation
    }

  private:
    std::shared_ptr<EarlyCancellation> m_state;
  };
};

// For an operation about to be spawned on `executor` whose handler has the
// cancellation slot `slot`: null when no EarlyCancellation is needed (no slot,
// or the caller runs on that io_context's thread, or another kind of
// executor), else one installed in `slot` (co_spawn must then get its Inner
// slot instead). One allocation, on that path only.
inline std::shared_ptr<EarlyCancellation> InterceptEarlyCancellation(boost::asio::cancellation_slot slot,
                                                                     boost::asio::any_io_executor const& executor) {
  if (!slot.is_connected()) return nullptr;
  auto const* io = executor.target<boost::asio::io_context::executor_type>();
  if (io == nullptr || io->running_in_this_thread()) return nullptr;
  auto early = std::make_shared<EarlyCancellation>();
  slot.emplace<EarlyCancellation::Forward>(early);
  return early;
}

}  // namespace docshard::cosmos::detail
