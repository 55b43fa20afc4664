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
// from the start on signals are passed through. The caller may emit from its
// own thread (cosmos_client.hpp requires the operation's thread only with
// more than one I/O thread) while the I/O thread starts the operation, so the
// two agree through one atomic state, not flags: whichever moves it off
// Idle first decides (a cancel lost between two flag checks would leave the
// operation running to its deadline). An operation started on its own I/O
// thread needs none of this: co_spawn runs it inline up to its first
// asynchronous operation, before any other handler there can emit.
//
// After the start, a signal from another thread is not emitted into Inner
// there: co_spawn's cancellation handler would queue `sig->emit` to the I/O
// thread with a raw pointer into Inner, and if the operation completed
// meanwhile and the caller then dropped its slot (a parallel group that is
// done), the last reference to this state would go and the queued emit would
// run on freed memory. Forward instead queues the emit itself, holding the
// state; on the I/O thread co_spawn's handler then emits inline. One
// allocation, on a cancellation from another thread only.
//
// Once the operation completed there is nothing left to cancel, and the
// caller may keep its signal and emit it after destroying the client (at
// shutdown, say): a dispatch then would reach a destroyed io_context. So the
// completion stores Done before the caller's handler runs (Finish), and
// Forward drops every signal from then on. The same holds for an operation
// still pending when the client is destroyed: its io_context destroys the
// operation's frames, and with them its handler uncalled, and that stores
// Done too (in the destructor of the completion or of a coroutine's local),
// before the client's destructor returns. A signal emitted concurrently with
// the completion may still be dispatched, but the caller cannot have seen
// the handler yet then, so the client is still alive.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <memory>
#include <utility>

namespace docshard::cosmos::detail {

struct EarlyCancellation {
  enum : int { Idle = 0, CancelledBeforeStart = 1, Started = 2, Done = 3 };

  explicit EarlyCancellation(boost::asio::io_context::executor_type io) : Io(std::move(io)) {}

  boost::asio::io_context::executor_type Io;  // the operation's I/O thread; Inner is emitted there only
  boost::asio::cancellation_signal Inner;     // the slot co_spawn is given
  std::atomic<int> State{Idle};

  // On the I/O thread as the operation starts: true when a terminal
  // cancellation came before (the operation must then fail at once); from
  // here on Forward passes signals to Inner.
  bool Start() { return State.exchange(Started, std::memory_order_acq_rel) == CancelledBeforeStart; }

  // When the operation has completed, before the caller's handler runs, or
  // when its handler is destroyed uncalled: from here on Forward drops every
  // signal (see the top of this file). Release: a caller that saw the handler
  // run (or the client's destructor return) and then emits sees Done.
  void Finish() { State.store(Done, std::memory_order_release); }

  // Stores Done when it goes out of scope: a coroutine's local, so on any
  // exit (a result, an exception, or the frame destroyed unfinished), before
  // co_spawn calls the handler. Holds the state itself: a destroyed frame's
  // lambda captures may be gone first.
  class FinishOnExit {
  public:
    explicit FinishOnExit(std::shared_ptr<EarlyCancellation> state) : m_state(std::move(state)) {}
    FinishOnExit(FinishOnExit const&) = delete;
    FinishOnExit& operator=(FinishOnExit const&) = delete;
    ~FinishOnExit() { m_state->Finish(); }

  private:
    std::shared_ptr<EarlyCancellation> m_state;
  };

  // The handler in the caller's slot; runs on the emitter's thread.
  class Forward {
  public:
    explicit Forward(std::shared_ptr<EarlyCancellation> state) : m_state(std::move(state)) {}
    void operator()(boost::asio::cancellation_type type) const {
      // co_spawn's filter too: only terminal cancellation counts before the start.
      if ((type & boost::asio::cancellation_type::terminal) != boost::asio::cancellation_type::none) {
        int expected = Idle;
        if (m_state->State.compare_exchange_strong(expected, CancelledBeforeStart, std::memory_order_acq_rel)) return;
        // A second terminal signal before the start, or one after the completion.
        if (expected != Started) return;
      } else if (m_state->State.load(std::memory_order_acquire) != Started) {
        return;  // before the start, or after the completion
      }
      // Started: emitted on the operation's I/O thread (inline when this is
      // it), with the state held until then (see the top of this file).
      boost::asio::dispatch(m_state->Io, [state = m_state, type] { state->Inner.emit(type); });
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
  auto early = std::make_shared<EarlyCancellation>(*io);
  slot.emplace<EarlyCancellation::Forward>(early);
  return early;
}

}  // namespace docshard::cosmos::detail
