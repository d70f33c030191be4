#include "runtime/object_store/spill_worker.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

#include "runtime/object_store/spill_files.h"

namespace ray::object_store {

Status SpillWorker::RunOnDisk(const Job& job) {
  return job.kind == Job::kSpill ? SpillSegment(job.segment, job.size, job.path)
                                 : RestoreSegment(job.path, job.segment, job.size);
}

SpillWorker::SpillWorker(RunJob run)
    : run_(run ? std::move(run) : RunJob(&SpillWorker::RunOnDisk)),
      event_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      thread_([this] { Loop(); }) {}

SpillWorker::~SpillWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    todo_.clear();
  }
  cv_.notify_one();
  thread_.join();
  if (event_fd_ >= 0) ::close(event_fd_);
}

void SpillWorker::Post(Job job) {
  ++in_flight_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    todo_.push_back(std::move(job));
  }
  cv_.notify_one();
}

std::vector<SpillWorker::Done> SpillWorker::TakeDone() {
  uint64_t count = 0;
  (void)!::read(event_fd_, &count, sizeof(count));  // resets it (EAGAIN if nothing)
  std::vector<Done> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done.swap(done_);
  }
  in_flight_ -= done.size();
  return done;
}

void SpillWorker::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !todo_.empty(); });
    if (stop_) return;
    Job job = std::move(todo_.front());
    todo_.pop_front();
    lock.unlock();
    Status st = run_(job);
    lock.lock();
    done_.push_back({std::move(job), std::move(st)});
    uint64_t one = 1;
    (void)!::write(event_fd_, &one, sizeof(one));
  }
}

}  // namespace ray::object_store
