// `ray exec CLUSTER.yaml CMD`: runs a command on a cluster's head.

#include <unistd.h>

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

void AddExec(CLI::App& app) {
  auto o = std::make_shared<cluster::ExecOptions>();
  auto* cmd = app.add_subcommand("exec", "Run a shell command on a cluster's head node");
  AddLaunchTarget(cmd, o->target);
  cmd->add_option("cmd", o->command, "the command (one argument: quote it)")->required();
  cmd->add_flag("--start", o->start, "start the cluster first if needed (ray up -y)");
  cmd->add_flag("--stop", o->stop, "tear the cluster down after the command (ray down -y)");
  auto* tmux = cmd->add_flag("--tmux", o->tmux, "run the command in a detached tmux session");
  cmd->add_flag("--screen", o->screen, "run the command in a detached screen session")->excludes(tmux);
  AddPortForward(cmd, o->ports);
  cmd->callback([o] {
    o->attached = ::isatty(0) && ::isatty(1) && !o->tmux && !o->screen;
    auto code = cluster::Exec(*o, MakeConsole(true));
    if (!code.ok()) Fail("exec", code.status());
    if (*code != 0) throw Exit{*code};
  });
}

void AddAttach(CLI::App& app) {
  struct Flags {
    cluster::LaunchTarget target;
    bool start = false, tmux = false, screen = false, new_session = false;
    std::vector<int> ports;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("attach", "Open a shell on a cluster's head node");
  AddLaunchTarget(cmd, f->target);
  cmd->add_flag("--start", f->start, "start the cluster first if needed (ray up -y)");
  auto* tmux = cmd->add_flag("--tmux", f->tmux, "attach to tmux (a new session if there is none)");
  cmd->add_flag("--screen", f->screen, "attach to screen")->excludes(tmux);
  cmd->add_flag("-N,--new", f->new_session, "a new tmux or screen session");
  AddPortForward(cmd, f->ports);
  cmd->callback([f] {
    if (f->new_session && !f->tmux && !f->screen) {
      Fail("attach", Status::InvalidArgument("--new goes with --tmux or --screen"));
    }
    if (!::isatty(0)) Fail("attach", Status::FailedPrecondition("attach needs a terminal"));
    if (f->start) {
      Status st = cluster::UpAsItIs(f->target, MakeConsole(true));
      if (!st.ok()) Fail("attach", st);
    }
    auto argv = cluster::AttachArgv(f->target, f->tmux, f->screen, f->new_session, f->ports);
    if (!argv.ok()) Fail("attach", argv.status());
    std::vector<char*> args;
    for (auto& a : *argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    Fail("attach", Status::Internal(std::string("cannot run ") + args[0]));
  });
}

}  // namespace ray::cli
