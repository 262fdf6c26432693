#include "select_many.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "perfit/batch/plan.hpp"
#include "perfit/core/error.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/mpi/communicator.hpp"
#include "select_naive.hpp"

namespace perfit::app {

namespace {

using Row = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::vector<std::string> matching_sets(const fit::RunConfig& c) {
  std::vector<std::string> out;
  const std::vector<std::string> all = io::StoreReader(c.data).sets();
  for (const auto& set : all) {
    if (batch::set_matches(c.set, set)) out.push_back(set);
  }
  if (out.empty()) {
    throw ConfigError("--set '" + c.set + "': matches none of the " + std::to_string(all.size()) + " set(s) of '" +
                      c.data + "' (e.g. " + (all.empty() ? std::string("none") : all.front()) + ")");
  }
  return out;
}

// The winner's constants on every row: a naive reference's, the search's least-squares
// coefficients, an in-sample fit's, or one fit on every row (a winner ranked on held-out rows).
Row winner_constants(const Selection& s, const fit::RunConfig& c) {
  const Candidate& w = s.ranked.front();
  Row k = Row::object();
  if (w.naive) {
    for (const auto& [name, v] : naive_spec_of(*w.naive, w.search_columns.front(), *s.set.rows).constants) k[name] = v;
    return k;
  }
  if (w.searched()) {
    k["c0"] = w.found.c0;
    for (std::size_t t = 0; t < w.found.terms.size(); ++t) k["c" + std::to_string(t + 1)] = w.found.terms[t].coefficient;
    return k;
  }
  Eigen::VectorXd params;
  if (s.folds.empty() && !w.fits.empty() && !w.fits.back().failed) {
    params = w.fits.back().params;
  } else {
    const fit::FitProblem p{w.model, s.set.rows, c.cost, {}, c.threads, c.compress, true, c.separable, c.scale};
    params = fit::fit(p, c.search(), {}, island::serial_layout()).params;
  }
  for (std::size_t i = 0; i < w.model->n_params(); ++i) k[w.model->param_names()[i]] = params(static_cast<Eigen::Index>(i));
  return k;
}

Row ok_row(const std::string& set, const Selection& s, const fit::RunConfig& c) {
  const Candidate& w = s.ranked.front();
  const auto score = [](const Candidate& m) { return std::isfinite(m.score) ? Row(m.score) : Row(nullptr); };
  Row r = {{"set", set}, {"status", "ok"}, {"model", w.word},
           {"hypothesis", w.searched() ? w.found.expression(w.search_columns) : w.model->spec().expression},
           {"score", score(w)}};
  const bool second = s.ranked.size() > 1 && std::isfinite(s.ranked[1].score);
  r["runner_up"] = second ? Row(s.ranked[1].word) : Row(nullptr);
  r["runner_up_score"] = second ? score(s.ranked[1]) : Row(nullptr);
  const auto& x = w.pooled.metrics;
  r["metrics"] = {{"mape", x.mape}, {"rmse", x.rmse}, {"r2", x.r2}, {"max_rel_err", x.max_rel_err}};
  r["constants"] = winner_constants(s, c);
  r["message"] = s.how;
  return r;
}

// This rank's share of the sets (every size-th from its rank), each selected on its own.
std::vector<Row> select_own(const SelectArgs& a, const fit::RunConfig& cfg, const std::vector<std::string>& sets) {
  const int rank = a.parallel() ? a.env->rank() : 0, size = a.parallel() ? a.env->size() : 1;
  const Guard plain = [](const std::function<void()>& fn) { fn(); };
  std::vector<Row> rows;
  for (std::size_t i = static_cast<std::size_t>(rank); i < sets.size(); i += static_cast<std::size_t>(size)) {
    fit::RunConfig c = cfg;
    c.set = sets[i];
    try {
      rows.push_back(ok_row(sets[i], select_set(a, c, plain, MPI_COMM_NULL), c));
    } catch (const Error& e) {
      rows.push_back({{"set", sets[i]}, {"status", "error"}, {"message", e.what()}});
    }
  }
  return rows;
}

// Every rank's rows on rank 0, in set order (empty elsewhere).
std::vector<Row> gather(const SelectArgs& a, std::vector<Row> mine, const std::vector<std::string>& sets) {
  if (!a.parallel()) return mine;
  const std::string text = Row(mine).dump();
  int n = static_cast<int>(text.size());
  const int size = a.env->size(), rank = a.env->rank();
  std::vector<int> sizes(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  mpi::check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather (selection sizes)");
  std::string all;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) displs[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r - 1)] + sizes[static_cast<std::size_t>(r - 1)];
    all.resize(static_cast<std::size_t>(displs.back() + sizes.back()));
  }
  mpi::check(MPI_Gatherv(text.data(), n, MPI_CHAR, all.data(), sizes.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
             "MPI_Gatherv (selection rows)");
  if (rank != 0) return {};
  std::map<std::string, Row> by_set;
  for (int r = 0; r < size; ++r) {
    const auto at = static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]);
    for (auto& row : Row::parse(all.substr(at, static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)])))) {
      by_set[row["set"].get<std::string>()] = row;
    }
  }
  std::vector<Row> out;
  for (const auto& set : sets) out.push_back(by_set.at(set));
  return out;
}

std::string csv_field(const Row& v) {
  if (v.is_null()) return "";
  if (v.is_number()) return v.dump();
  const std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

// Each constant in its own column: the union over the winners, in order of first appearance.
std::string to_csv(const std::vector<Row>& rows) {
  static const char* kFixed[] = {"set", "status", "model", "hypothesis", "score", "runner_up", "runner_up_score"};
  static const char* kMetrics[] = {"mape", "rmse", "r2", "max_rel_err"};
  std::vector<std::string> constants;
  for (const auto& r : rows) {
    if (!r.contains("constants")) continue;
    for (const auto& [k, v] : r["constants"].items()) {
      if (std::find(constants.begin(), constants.end(), k) == constants.end()) constants.push_back(k);
    }
  }
  std::string csv;
  for (const char* f : kFixed) csv += std::string(f) + ",";
  for (const char* m : kMetrics) csv += std::string(m) + ",";
  for (const auto& k : constants) csv += csv_field(Row(k)) + ",";
  csv += "message\n";
  for (const auto& r : rows) {
    for (const char* f : kFixed) csv += (r.contains(f) ? csv_field(r[f]) : "") + ",";
    for (const char* m : kMetrics) csv += (r.contains("metrics") ? csv_field(r["metrics"][m]) : "") + ",";
    for (const auto& k : constants) csv += (r.contains("constants") && r["constants"].contains(k) ? csv_field(r["constants"][k]) : "") + ",";
    csv += csv_field(r["message"]) + "\n";
  }
  return csv;
}


// --out DIR: a directory (made if missing) whose selection.csv / .json may be replaced only with --force.
void check_out_dir(const SelectArgs& a, const fit::RunConfig& c) {
  std::error_code ec;
  if (fs::exists(c.out, ec) && !fs::is_directory(c.out, ec)) {
    throw ConfigError("--out '" + c.out + "': with a glob in --set, --out names a directory for selection.csv and "
                      "selection.json, and this is a file. Choose a directory");
  }
  fs::create_directories(c.out, ec);
  if (ec) throw IoError("--out '" + c.out + "': cannot create the directory (" + ec.message() + ")");
  for (const char* name : {"selection.csv", "selection.json"}) {
    io::check_output({(fs::path(c.out) / name).string(), "--out", io::FileKind::other, {c.data}, a.force});
  }
}

void print_rows(const std::vector<Row>& rows) {
  std::printf("%-32s %-6s %-20s %12s %-20s %12s  %s\n", "set", "status", "model", "score", "runner-up", "score", "hypothesis / message");
  for (const auto& r : rows) {
    const bool ok = r["status"] == "ok";
    const auto num = [](const Row& v) { return v.is_number() ? v.get<double>() : std::nan(""); };
    std::printf("%-32s %-6s %-20s %12.6g %-20s %12.6g  %s\n", r["set"].get<std::string>().c_str(), r["status"].get<std::string>().c_str(),
                ok ? r["model"].get<std::string>().c_str() : "-", ok ? num(r["score"]) : std::nan(""),
                ok && r["runner_up"].is_string() ? r["runner_up"].get<std::string>().c_str() : "-",
                ok ? num(r["runner_up_score"]) : std::nan(""),
                (ok ? r["hypothesis"] : r["message"]).get<std::string>().c_str());
  }
}

}  // namespace

bool is_set_glob(const std::string& set) { return set.find_first_of("*?[") != std::string::npos; }

int run_select_many(const SelectArgs& a, const fit::RunConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const io::SealMemo checked_once;  // every set opens the store: its checksum is read once
  std::vector<std::string> sets;
  a.agreed([&] {
    sets = matching_sets(cfg);
    if (!cfg.out.empty() && (!a.parallel() || a.env->rank() == 0)) check_out_dir(a, cfg);
  });
  spdlog::info("select: {} set(s) match '{}'; {} selects its share of them", sets.size(), cfg.set,
               a.parallel() ? std::to_string(a.env->size()) + " ranks each" : std::string("this process"));
  // Held open for the run: HDF5 shares an open file's metadata cache with every later open of
  // it, so the set-by-set opens below do not read the store's index again.
  const io::StoreReader keep_open(cfg.data);
  const std::vector<Row> rows = gather(a, select_own(a, cfg, sets), sets);
  double ok = 0;
  for (const auto& r : rows) ok += r["status"] == "ok" ? 1.0 : 0.0;
  if (a.parallel()) mpi::check(MPI_Bcast(&ok, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast (selections ok)");
  if (ok == 0.0) {
    throw DataError("select: every one of the " + std::to_string(sets.size()) + " set(s) failed" +
                    (rows.empty() ? std::string() : "; the first: " + rows.front()["message"].get<std::string>()));
  }
  if (a.parallel() && a.env->rank() != 0) return 0;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info("select: {} set(s) in {:.2f} s: {} ok, {} error", sets.size(), seconds, static_cast<std::size_t>(ok),
               sets.size() - static_cast<std::size_t>(ok));
  Row j = {{"data", cfg.data}, {"sets", cfg.set}, {"criterion", to_string(a.criterion)}, {"rows", rows}};
  if (!cfg.out.empty()) {
    io::write_text_file((fs::path(cfg.out) / "selection.csv").string(), to_csv(rows));
    io::write_text_file((fs::path(cfg.out) / "selection.json").string(), j.dump(2) + "\n");
    j["out"] = cfg.out;
  }
  if (a.json) {
    std::cout << j.dump(2) << "\n";
  } else if (!cfg.out.empty()) {
    std::printf("wrote %s and selection.json: %zu set(s), %zu ok, %zu error\n", (fs::path(cfg.out) / "selection.csv").c_str(),
                sets.size(), static_cast<std::size_t>(ok), sets.size() - static_cast<std::size_t>(ok));
  } else {
    print_rows(rows);
  }
  return 0;
}

}  // namespace perfit::app
