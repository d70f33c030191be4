#include "runtime/object_store/object_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "runtime/base/logging.h"
#include "runtime/object_store/spill_files.h"

namespace ray::object_store {

Mapping::~Mapping() {
  if (addr_ && size_) ::munmap(addr_, size_);
}

std::string SegmentName(const std::string& store_tag, const ObjectId& id) {
  return "/ray-" + store_tag + "-" + id.Hex();
}

Result<NewSegment> CreateSegment(const std::string& name, size_t size) {
  int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return Status::AlreadyExists("segment " + name + " exists");
    return Status::Internal("shm_open " + name + ": " + std::strerror(errno));
  }
  void* addr = nullptr;
  if (size > 0) {
    int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (rc == 0) addr = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (rc != 0 || addr == MAP_FAILED) {
      std::string err = std::strerror(rc != 0 ? rc : errno);
      ::close(fd);
      ::shm_unlink(name.c_str());
      return Status::ResourceExhausted("cannot allocate " + std::to_string(size) +
                                       " bytes of shared memory for " + name + ": " + err);
    }
  }
  return NewSegment{fd, addr};
}

Result<std::shared_ptr<WritableSegment>> WritableSegment::Create(const std::string& name,
                                                                 size_t size) {
  RAY_ASSIGN_OR_RETURN(NewSegment s, CreateSegment(name, size));
  ::fchmod(s.fd, 0400);  // sealed: readers cannot open it for writing
  ::close(s.fd);
  return std::shared_ptr<WritableSegment>(new WritableSegment(name, s.addr, size));
}

WritableSegment::~WritableSegment() {
  if (addr_) ::munmap(addr_, size_);
}

Status WritableSegment::Rename(const std::string& name) {
  // shm_open("/x") is /dev/shm/x on Linux.
  if (std::rename(("/dev/shm" + name_).c_str(), ("/dev/shm" + name).c_str()) != 0) {
    return Status::Internal("cannot rename segment " + name_ + " to " + name + ": " +
                            std::strerror(errno));
  }
  name_ = name;
  return Status::Ok();
}

void WritableSegment::Fill(const std::vector<std::string_view>& parts) {
  size_t offset = 0;
  for (std::string_view part : parts) {
    std::memcpy(data() + offset, part.data(), part.size());
    offset += part.size();
  }
}

Status WriteSegment(const std::string& name, std::string_view data) {
  RAY_ASSIGN_OR_RETURN(auto segment, WritableSegment::Create(name, data.size()));
  segment->Fill({data});
  return Status::Ok();
}

Result<std::shared_ptr<Mapping>> MapSegment(const std::string& name, size_t expected_size) {
  int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return Status::NotFound("no shared-memory segment " + name);
  struct stat st {};
  ::fstat(fd, &st);
  if (static_cast<size_t>(st.st_size) != expected_size) {
    ::close(fd);
    return Status::DataLoss("segment " + name + " has " + std::to_string(st.st_size) +
                            " bytes, expected " + std::to_string(expected_size));
  }
  if (expected_size == 0) {
    ::close(fd);
    return std::make_shared<Mapping>(nullptr, 0);
  }
  void* addr = ::mmap(nullptr, expected_size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (addr == MAP_FAILED) return Status::Internal("cannot map " + name + ": " + std::strerror(errno));
  return std::make_shared<Mapping>(addr, expected_size);
}

void UnlinkSegment(const std::string& name) { ::shm_unlink(name.c_str()); }

std::unordered_set<std::string> SegmentsMappedBy(int pid, const std::string& store_tag) {
  std::unordered_set<std::string> names;
  const std::string prefix = "/dev/shm/ray-" + store_tag + "-";
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    size_t at = line.find(prefix);
    if (at == std::string::npos) continue;
    std::string path = line.substr(at);
    path = path.substr(0, path.find(' '));  // " (deleted)" after an unlink
    names.insert(path.substr(std::strlen("/dev/shm")));
  }
  return names;
}

void UnlinkAllSegments(const std::string& store_tag) {
  if (store_tag.empty()) return;  // would match every ray segment on the machine
  std::string prefix = "ray-" + store_tag;
  DIR* dir = ::opendir("/dev/shm");
  if (!dir) return;
  while (dirent* e = ::readdir(dir)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) {
      ::shm_unlink(("/" + std::string(e->d_name)).c_str());
    }
  }
  ::closedir(dir);
}

ObjectStore::ObjectStore(StoreOptions options, MappedSegments mapped)
    : options_(std::move(options)), mapped_(std::move(mapped)) {
  if (options_.background_io && !options_.spill_dir.empty()) {
    worker_ = std::make_unique<SpillWorker>(options_.run_io_job);
  }
}

ObjectStore::~ObjectStore() {
  worker_.reset();  // waits for the job in progress
  for (const auto& [id, e] : objects_) {
    // A job in flight may have left a segment and a partial file: both go.
    if (e.spill_path.empty() || e.io != Entry::kNone) UnlinkSegment(e.segment);
    if (!e.spill_path.empty() || e.io == Entry::kSpilling) {
      ::unlink(SpillPath(options_.spill_dir, options_.tag, id).c_str());
    }
  }
}

Status ObjectStore::Admit(const ObjectId& id, const std::string& segment, size_t size,
                          bool referenced) {
  if (auto it = objects_.find(id); it != objects_.end()) {
    // The same name is the segment already held: keep it.
    if (segment != it->second.segment) UnlinkSegment(segment);
    return Status::AlreadyExists("object " + id.Hex() + " is already in the store");
  }
  if (Status room = MakeRoom(id, size); !room.ok()) {
    UnlinkSegment(segment);
    return room;
  }
  objects_[id] = Entry{segment, size, referenced, ""};
  used_ += size;
  policy_.Add(id, size, referenced);
  return Status::Ok();
}

Status ObjectStore::MakeRoom(const ObjectId& id, size_t size) {
  const size_t free = options_.capacity_bytes - used_;  // used_ <= capacity
  if (size <= free) return Status::Ok();
  std::unordered_set<std::string> mapped;
  if (mapped_) mapped = mapped_();
  const bool can_spill = !options_.spill_dir.empty();
  auto is_pinned = [&](const ObjectId& o) { return mapped.count(objects_.at(o).segment) > 0; };
  auto unmovable = [&](const ObjectId& o) {
    return is_pinned(o) || (objects_.at(o).referenced && !can_spill);
  };
  auto plan =
      size > options_.capacity_bytes ? std::nullopt : policy_.MakeRoom(size - free, unmovable);
  if (!plan) return Refuse(id, size, policy_.PinnedBytes(is_pinned), "");
  for (const ObjectId& victim : plan->evict) {
    auto it = objects_.find(victim);
    UnlinkSegment(it->second.segment);
    used_ -= it->second.size;
    policy_.Remove(victim);
    objects_.erase(it);
    evicted_.push_back(victim);
  }
  for (const ObjectId& victim : plan->spill) {
    Entry& e = objects_.at(victim);
    if (worker_) {
      BeginSpill(victim, e);
      continue;
    }
    std::string path = SpillPath(options_.spill_dir, options_.tag, victim);
    Status spilled = SpillSegment(e.segment, e.size, path);
    if (!spilled.ok()) {
      return Refuse(id, size, policy_.PinnedBytes(is_pinned), " (" + spilled.message() + ")");
    }
    UnlinkSegment(e.segment);
    e.spill_path = std::move(path);
    used_ -= e.size;
    spilled_ += e.size;
    policy_.Remove(victim);
  }
  RAY_LOG_INFO("object store full: evicted {} and spilled {} objects ({} bytes) for object {}",
               plan->evict.size(), plan->spill.size(), plan->freed_bytes, id.Hex());
  return Status::Ok();
}

Status ObjectStore::Refuse(const ObjectId& id, size_t size, size_t pinned,
                           const std::string& why) const {
  return Status::ResourceExhausted(
      "object store full: object " + id.Hex() + " needs " + std::to_string(size) +
      " bytes; capacity " + std::to_string(options_.capacity_bytes) + ", in use " +
      std::to_string(used_) + ", pinned " + std::to_string(pinned) + ", spilled to disk " +
      std::to_string(spilled_) + why + " (raise --object-store-memory)");
}

void ObjectStore::BeginSpill(const ObjectId& id, Entry& e) {
  e.io = Entry::kSpilling;
  e.read_while_spilling = false;
  used_ -= e.size;
  spilling_ += e.size;
  policy_.Remove(id);
  worker_->Post({SpillWorker::Job::kSpill, id, e.segment, e.size,
                 SpillPath(options_.spill_dir, options_.tag, id)});
}

void ObjectStore::EndSpill(const SpillWorker::Job& job, const Status& st) {
  Entry& e = objects_.at(job.id);
  e.io = Entry::kNone;
  if (e.freed) {  // its segment went with Free
    ::unlink(job.path.c_str());
    objects_.erase(job.id);
    return;
  }
  spilling_ -= e.size;
  if (st.ok() && !e.read_while_spilling) {
    // The file is complete: only now does the segment go.
    UnlinkSegment(e.segment);
    e.spill_path = job.path;
    spilled_ += e.size;
    return;
  }
  if (!st.ok()) RAY_LOG_WARN("spilling object {} failed; it stays in memory: {}", job.id.Hex(), st.message());
  ::unlink(job.path.c_str());  // (nothing is left of a failed one)
  used_ += e.size;
  policy_.Add(job.id, e.size, e.referenced);
}

Status ObjectStore::EndRestore(const SpillWorker::Job& job, Status st) {
  Entry& e = objects_.at(job.id);
  e.io = Entry::kNone;
  if (e.freed) {  // its file went with Free
    if (st.ok()) UnlinkSegment(job.segment);
    objects_.erase(job.id);
    return Status::NotFound("object " + job.id.Hex() + " was freed while it was restored");
  }
  if (!st.ok()) {  // room was kept for it: given back; it stays spilled
    used_ -= e.size;
    spilled_ += e.size;
    return st;
  }
  ::unlink(e.spill_path.c_str());
  e.spill_path.clear();
  policy_.Add(job.id, e.size, e.referenced);
  return st;
}

void ObjectStore::EndFinishedJobs() {
  if (!worker_) return;
  for (auto& done : worker_->TakeDone()) {
    if (done.job.kind == SpillWorker::Job::kSpill) {
      EndSpill(done.job, done.status);
    } else {
      restored_.push_back({done.job.id, EndRestore(done.job, std::move(done.status))});
    }
  }
}

std::vector<ObjectStore::Restored> ObjectStore::CompleteIo() {
  EndFinishedJobs();
  return std::move(restored_);
}

void ObjectStore::Touch(const ObjectId& id) {
  auto it = objects_.find(id);
  if (it != objects_.end() && it->second.io == Entry::kSpilling) {
    it->second.read_while_spilling = true;  // a reader may map its segment: it stays
    return;
  }
  policy_.Touch(id);
}

Status ObjectStore::StartRestore(const ObjectId& id) {
  if (!worker_) return Restore(id);
  auto it = objects_.find(id);
  if (it == objects_.end() || it->second.freed) {
    return Status::NotFound("object " + id.Hex() + " is not in the store");
  }
  if (it->second.io == Entry::kRestoring) return Status::Unavailable("being restored");
  if (it->second.spill_path.empty()) return Status::Ok();  // in memory (or being spilled)
  const size_t size = it->second.size;
  RAY_RETURN_IF_ERROR(MakeRoom(id, size));
  Entry& e = objects_.at(id);  // MakeRoom never moves a spilled object
  e.io = Entry::kRestoring;
  spilled_ -= size;
  used_ += size;  // kept for it
  worker_->Post({SpillWorker::Job::kRestore, id, e.segment, size, e.spill_path});
  return Status::Unavailable("being restored");
}

bool ObjectStore::Spilled(const ObjectId& id) const {
  auto it = objects_.find(id);
  return it != objects_.end() && !it->second.freed && !it->second.spill_path.empty();
}

Status ObjectStore::Restore(const ObjectId& id) {
  auto it = objects_.find(id);
  // A background job of the object ends first (rarely: the loop restores with
  // StartRestore and waits for CompleteIo).
  while (it != objects_.end() && it->second.io == Entry::kRestoring && worker_) {
    pollfd p{worker_->notify_fd(), POLLIN, 0};
    ::poll(&p, 1, 100);
    EndFinishedJobs();
    it = objects_.find(id);
  }
  if (it == objects_.end() || it->second.freed) {
    return Status::NotFound("object " + id.Hex() + " is not in the store");
  }
  if (it->second.spill_path.empty()) return Status::Ok();
  const size_t size = it->second.size;
  RAY_RETURN_IF_ERROR(MakeRoom(id, size));
  Entry& e = objects_.at(id);  // MakeRoom never moves a spilled object
  RAY_RETURN_IF_ERROR(RestoreSegment(e.spill_path, e.segment, size));
  ::unlink(e.spill_path.c_str());
  e.spill_path.clear();
  spilled_ -= size;
  used_ += size;
  policy_.Add(id, size, e.referenced);
  return Status::Ok();
}

void ObjectStore::Free(const ObjectId& id) {
  auto it = objects_.find(id);
  if (it == objects_.end() || it->second.freed) return;
  if (it->second.io != Entry::kNone) {
    // Its job ends in CompleteIo, which removes what it leaves; the bytes leave the
    // counts now.
    Entry& e = it->second;
    if (e.io == Entry::kSpilling) {
      UnlinkSegment(e.segment);
      spilling_ -= e.size;
    } else {
      ::unlink(e.spill_path.c_str());
      used_ -= e.size;
    }
    e.freed = true;
    return;
  }
  if (it->second.spill_path.empty()) {
    UnlinkSegment(it->second.segment);
  } else {
    ::unlink(it->second.spill_path.c_str());
  }
  Forget(id);
}

void ObjectStore::Forget(const ObjectId& id) {
  auto it = objects_.find(id);
  if (it == objects_.end() || it->second.freed) return;
  if (it->second.io != Entry::kNone) return Free(id);  // (the rare case: as a free)
  if (it->second.spill_path.empty()) {
    used_ -= it->second.size;
  } else {
    spilled_ -= it->second.size;  // a spilled object's segment is gone: nothing to refill
    ::unlink(it->second.spill_path.c_str());
  }
  policy_.Remove(id);
  objects_.erase(it);
}

}  // namespace ray::object_store
