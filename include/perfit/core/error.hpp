// Typed errors. Each class is one kind of failure a user can act on, and maps to one process
// exit code so that scripts and Slurm jobs can tell a bad config from bad data or a broken file.
// Messages name the file, dataset, column or key, what was found, what was expected, and the fix.
#pragma once

#include <stdexcept>
#include <string>

namespace perfit {

class Error : public std::runtime_error {
 public:
  Error(const std::string& what, int exit_code) : std::runtime_error(what), exit_code_(exit_code) {}
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

// A bad or missing command-line or config value.
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& what) : Error(what, 2) {}
};

// Input content (CSV, HDF5 store, result file) is not what perfit needs.
class DataError : public Error {
 public:
  explicit DataError(const std::string& what) : Error(what, 3) {}
};

// An HDF5 library call failed; the message carries the HDF5 error stack.
class H5Error : public Error {
 public:
  explicit H5Error(const std::string& what) : Error(what, 4) {}
};

// An MPI call failed or ranks disagree.
class MpiError : public Error {
 public:
  explicit MpiError(const std::string& what) : Error(what, 5) {}
};

// A file could not be opened, created or renamed (permissions, missing directory, full disk).
class IoError : public Error {
 public:
  explicit IoError(const std::string& what) : Error(what, 6) {}
};

// An error that every rank of a job already agreed on (mpi::all_or_none): the rank that found
// it first prints it (print() is true there only) and every rank exits with its code, with no
// MPI_Abort, so the user reads one line instead of one per rank.
class AgreedError : public Error {
 public:
  AgreedError(const std::string& what, int exit_code, bool print)
      : Error(what, exit_code), print_(print) {}
  bool print() const noexcept { return print_; }

 private:
  bool print_;
};

}  // namespace perfit
