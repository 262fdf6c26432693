// `perfit report`: the HTML report is made by the Python package (python3 -m perfit.report), so
// that its figures are the package's matplotlib figures; this command finds the interpreter and
// the package (the build tree's, the installed one, or any on the default path) and runs it.
// The rest of perfit works where Python is absent.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"

extern char** environ;

namespace perfit::app {

namespace {

struct ReportArgs {
  std::string input, out;
  bool force = false, json = false;
};

// Where the package may be, nearest first: beside the executable in a build tree
// (build/perfit, build/python/perfit), then under an install prefix (bin/perfit,
// <prefix>/PERFIT_PYTHON_INSTALL_DIR/perfit).
std::vector<std::filesystem::path> package_dirs() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path dir = exe.parent_path();
  return {dir / "python", dir.parent_path() / PERFIT_PYTHON_INSTALL_DIR};
}

std::string python_executable() {
  std::error_code ec;
  const std::string built = PERFIT_PYTHON_EXECUTABLE;
  if (!built.empty() && std::filesystem::exists(built, ec)) return built;
  return "python3";
}

int run_report(const ReportArgs& a) {
  std::string path;
  for (const auto& d : package_dirs()) {
    std::error_code ec;
    if (std::filesystem::exists(d / "perfit" / "__init__.py", ec)) {
      path = d.string();
      break;
    }
  }
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("PYTHONPATH=", 0) == 0) {
      if (path.empty())
        env.push_back(kv);
      else
        path += ":" + kv.substr(11);
    } else {
      env.push_back(kv);
    }
  }
  if (!path.empty()) env.push_back("PYTHONPATH=" + path);
  const std::string python = python_executable();
  std::vector<std::string> args = {python, "-m", "perfit.report", a.input, "--out", a.out};
  if (a.force) args.push_back("--force");
  if (a.json) args.push_back("--json");
  std::vector<char*> argv, envp;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (const int err =
          posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), envp.data());
      err != 0) {
    throw IoError(
        "perfit report needs Python 3 with the perfit package (docs/python.md): cannot run '" +
        python + "': " + std::strerror(err));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw IoError(std::string("perfit report: waiting for Python failed: ") +
                    std::strerror(errno));
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  const int code = WEXITSTATUS(status);
  if (code == 1 && path.empty()) {
    std::fprintf(stderr,
                 "perfit report: is the Python package installed? Build perfit with "
                 "-DPERFIT_PYTHON_PACKAGE=ON "
                 "(docs/python.md)\n");
  }
  return code;
}

const OptionTable<ReportArgs>& report_options() {
  using A = ReportArgs;
  static const OptionTable<A> t = {
      required(positional(text_option<A>(
          "input", &A::input, "a file or directory",
          "a result file, a selection store (DIR/selection.h5) or a batch directory"))),
      required(out_option<A>(&A::out, "the HTML report to write")),
      force_option<A>(&A::force, "replace an existing report at --out"),
      json_option<A>(&A::json,
                     "{input, out, bytes, seconds} as one JSON object instead of the line"),
  };
  return t;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  add_command(
      app, action, "report",
      "One self-contained HTML report (figures inline as SVG, no network, no JavaScript) of a\n"
      "fit, a selection or a batch, made by the Python package: python3 -m perfit.report.",
      std::make_shared<ReportArgs>(), report_options(), run_report);
}

}  // namespace perfit::app
