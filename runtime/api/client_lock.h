#pragma once
// The lock a process's threads hold while they use its CoreClient, and the pump role.
//
// A client's sockets and state belong to one thread at a time: the one holding this
// lock (recursive: a thread may take it again while it holds it). Threads that wait
// for frames (a Get, a Wait, a request's reply, a worker's next task) share the
// sockets this way: one of them, holding the pump role, polls and handles what comes;
// the others sleep (the lock released) until it has handled something, or has
// dropped the role, and then look at what they wait for again.
//
// The pumping thread polls while it holds the lock. A thread that wants the lock then
// wakes it through wake_fd(), which the pumping thread polls beside its sockets; it
// lets the waiting threads in (LetWaitersIn) before it polls again. So a thread blocked
// in a Get never keeps another thread from submitting, putting or getting.
//
// Thread-safe. Costs one uncontended mutex when a single thread uses the client.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace ray::core {

class ClientLock {
 public:
  ClientLock();  // an eventfd (a process out of file descriptors aborts here)
  ~ClientLock();
  ClientLock(const ClientLock&) = delete;
  ClientLock& operator=(const ClientLock&) = delete;

  // BasicLockable (std::lock_guard, std::unique_lock). Recursive.
  void lock();
  void unlock();

  // Readable while a thread waits in lock(): polled by the thread pumping.
  int wake_fd() const { return wake_fd_; }
  // The holder, its poll woken: lets every thread waiting in lock() in, and returns
  // holding the lock again (at the same depth).
  void LetWaitersIn();

  // The holder takes the pump role: false if another thread has it (then AwaitPump).
  // A thread that has it already takes it again (nested).
  bool TryTakePump();
  void ReleasePump();
  // The holder, after handling frames (or a poll that found none): sleepers look again.
  void NotifyHandled();
  // The holder, not pumping: sleeps with the lock released until the pumping thread
  // handles something or drops the role, or timeout_ms passes (-1: no limit); returns
  // holding the lock again.
  void AwaitPump(int timeout_ms);

 private:
  // With mu_ held: waits until the lock is free and takes it at `depth`.
  void Acquire(std::unique_lock<std::mutex>& g, int depth);

  std::mutex mu_;
  std::condition_variable cv_;
  std::thread::id owner_;  // of the lock; default: free
  int depth_ = 0;
  int waiting_ = 0;  // threads in lock() (or re-taking it) while it is held
  bool wake_pending_ = false;
  std::thread::id pumper_;  // default: nobody pumps
  int pump_depth_ = 0;
  uint64_t handled_ = 0;  // NotifyHandled calls
  int wake_fd_ = -1;
};

}  // namespace ray::core
