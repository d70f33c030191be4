#include "runtime/raylet/zygote.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ray::raylet {

namespace {

constexpr size_t kMaxIdBytes = 64;

// A message of `iov`'s bytes with two file descriptors (SCM_RIGHTS).
struct FdMessage {
  explicit FdMessage(iovec iov) : iov(iov) {
    msg.msg_iov = &this->iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;

  iovec iov;
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr msg{};
};

bool SendWithFds(int socket, const std::string& payload, int fd0, int fd1) {
  FdMessage m(iovec{const_cast<char*>(payload.data()), payload.size()});
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(2 * sizeof(int));
  int fds[2] = {fd0, fd1};
  std::memcpy(CMSG_DATA(c), fds, sizeof(fds));
  // (Never blocks: a zygote that stopped reading counts as gone.)
  return ::sendmsg(socket, &m.msg, MSG_NOSIGNAL | MSG_DONTWAIT) ==
         static_cast<ssize_t>(payload.size());
}

// The payload (empty: the peer is gone or sent something else) and its two fds.
std::string RecvWithFds(int socket, int fds[2]) {
  char buf[kMaxIdBytes];
  FdMessage m(iovec{buf, sizeof(buf)});
  ssize_t n;
  do {
    n = ::recvmsg(socket, &m.msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  cmsghdr* c = n > 0 ? CMSG_FIRSTHDR(&m.msg) : nullptr;
  if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int))) {
    return "";
  }
  std::memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

std::optional<std::string> ServeZygote(int fd) {
  const pid_t raylet = ::getppid();
  // Loaded once here, not in every worker: a worker's ZeroMQ context looks a protocol
  // up (libpgm's init), which loads the name service's modules by searching the
  // library path.
  (void)::getprotobyname("pgm");
  while (true) {
    int fds[2] = {-1, -1};
    std::string id = RecvWithFds(fd, fds);
    if (id.empty()) return std::nullopt;  // the raylet is gone
    // fork(), but the child's parent is ours (CLONE_PARENT): the raylet reaps it.
    pid_t worker = static_cast<pid_t>(
        ::syscall(SYS_clone, CLONE_PARENT | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
    if (worker == 0) {
      ::close(fd);
      ::dup2(fds[0], 1);
      ::dup2(fds[1], 2);
      ::close(fds[0]);
      ::close(fds[1]);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != raylet) ::_exit(1);  // the raylet died meanwhile
      return id;
    }
    ::close(fds[0]);
    ::close(fds[1]);
    int32_t pid = worker;  // -1 if the clone failed
    (void)::send(fd, &pid, sizeof(pid), MSG_NOSIGNAL);
  }
}

Result<std::unique_ptr<Zygote>> Zygote::Start(const std::string& binary,
                                              const std::vector<std::string>& worker_args) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    return Status::Unavailable(std::string("socketpair: ") + std::strerror(errno));
  }
  ::fcntl(pair[1], F_SETFD, 0);  // the zygote's end survives its exec
  SpawnOptions spawn;
  // The placeholder id has a worker id's length: a forked worker writes its own there.
  spawn.argv = {binary, "_zygote", "--fd", std::to_string(pair[1]), "--worker-id",
                std::string(32, '0')};
  spawn.argv.insert(spawn.argv.end(), worker_args.begin(), worker_args.end());
  spawn.parent_death_signal = SIGKILL;
  auto child = Spawn(spawn);
  ::close(pair[1]);
  if (!child.ok()) {
    ::close(pair[0]);
    return child.status();
  }
  return std::unique_ptr<Zygote>(new Zygote(pair[0], child->pid));
}

Zygote::~Zygote() {
  Kill();  // (closing its socket alone would let it fork what it has read meanwhile)
  ::close(fd_);
}

void Zygote::Kill() { ::kill(pid_, SIGKILL); }

Result<Child> Zygote::Fork(const std::string& worker_id_hex) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Status::ResourceExhausted("pipe: " + std::string(std::strerror(errno)));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return Status::ResourceExhausted("pipe: " + std::string(std::strerror(errno)));
  }
  bool sent = SendWithFds(fd_, worker_id_hex, out[1], err[1]);
  ::close(out[1]);
  ::close(err[1]);
  if (!sent) {
    ::close(out[0]);
    ::close(err[0]);
    return Status::Unavailable("the zygote (pid " + std::to_string(pid_) + ") takes no requests");
  }
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  return Child{0, out[0], err[0]};
}

Result<int> Zygote::NextPid(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  int ready;
  do {
    ready = ::poll(&p, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready == 0) return 0;
  int32_t pid = 0;
  ssize_t n = ready == 1 ? ::recv(fd_, &pid, sizeof(pid), MSG_DONTWAIT) : -1;
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
  if (n == static_cast<ssize_t>(sizeof(pid)) && pid != 0) return pid > 0 ? pid : -1;
  return Status::Unavailable("the zygote (pid " + std::to_string(pid_) + ") is gone");
}

}  // namespace ray::raylet
