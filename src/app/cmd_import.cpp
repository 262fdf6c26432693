#include <cstdio>

#include "commands.hpp"
#include "common_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/store_import.hpp"

namespace perfit::app {

namespace {

int run_import_extrap(const io::ImportOptions& o) {
  if (!o.target.empty() || !o.throughput.empty() || !o.categorical.empty()) {
    throw ConfigError("--format extrap: --target, --throughput and --categorical do not apply (the sets' "
                      "target is 'value', one column per PARAMETER)");
  }
  const io::ImportSummary s = io::import_extrap(o);
  std::printf("imported %zu rows from Extra-P file '%s' into '%s' as %zu set(s):", s.rows_in_set, o.csv.c_str(),
              o.store.c_str(), s.sets.size());
  for (const auto& set : s.sets) std::printf(" %s", set.c_str());
  std::printf("\n");
  if (s.rows_dropped > 0) std::printf("dropped %zu values that are not > 0 (--drop-invalid)\n", s.rows_dropped);
  return 0;
}

}  // namespace

void add_import_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<io::ImportOptions>();
  auto delimiter = std::make_shared<std::string>(",");
  auto* cmd = app.add_subcommand(
      "import",
      "Import a CSV file (header row = column names) as one measurement set of an HDF5 store.\n"
      "Column types are inferred from each column's first value. With --format extrap, an\n"
      "Extra-P text file: one set per region x metric under --set /PREFIX. The store is\n"
      "rewritten through a temporary file, so on any error it stays exactly as it was.");
  cmd->add_option("csv", o->csv, "CSV (or Extra-P text) file to import")->required();
  cmd->add_option("--format", o->format, "csv, or extrap (Extra-P's PARAMETER/POINTS/REGION/METRIC/DATA text)")
      ->capture_default_str();
  add_out_option(cmd, o->store, "HDF5 store to create or add to")->required();
  cmd->add_option("--set", o->set, "set path /<framework>/<model>[/<system>] (extrap: /PREFIX)")->required();
  cmd->add_option("--target", o->target,
                  "column holding the measured time (with --throughput: the time column to create); "
                  "required for CSV, extrap sets use 'value'");
  cmd->add_option("--throughput", o->throughput,
                  "column holding throughput (samples/s) instead of time: the set gets --target = "
                  "--work / throughput");
  cmd->add_option("--work", o->work, "samples one measurement processes (with --throughput), e.g. "
                  "1281167 for an ImageNet epoch");
  cmd->add_option("--unit", o->unit, "unit of the target column")->capture_default_str();
  cmd->add_option("--source", o->source, "provenance note (default: the CSV file name)");
  cmd->add_option("--categorical", o->categorical, "columns to keep as text")->delimiter(',');
  cmd->add_option("--delimiter", *delimiter, "field separator: ',' ';' or tab")->capture_default_str();
  cmd->add_flag("--append", o->append, "add the rows to an existing set");
  cmd->add_flag("--replace", o->replace, "overwrite an existing set");
  cmd->add_flag("--drop-invalid", o->drop_invalid,
                "drop rows whose target is NaN, inf, zero or negative (and count them)");
  cmd->callback([o, delimiter, &action] {
    action = [o, delimiter] {
      const std::string& d = *delimiter;
      if (d == "," || d == ";") {
        o->delimiter = d[0];
      } else if (d == "tab" || d == "\t" || d == "\\t") {
        o->delimiter = '\t';
      } else {
        throw ConfigError("--delimiter: found '" + d + "', expected one of ',' ';' tab");
      }
      io::check_output({o->store, "--out", io::FileKind::store, {o->csv}, false, true});
      if (o->format == "extrap") return run_import_extrap(*o);
      if (o->format != "csv") throw ConfigError("--format: found '" + o->format + "', expected csv or extrap");
      const io::ImportSummary s = io::import_csv(*o);
      std::printf("imported %zu rows from '%s' into '%s' set '%s'%s%s; the set has %zu rows\n",
                  s.rows_read - s.rows_dropped, o->csv.c_str(), o->store.c_str(), o->set.c_str(),
                  s.created_store ? " (new store)" : "",
                  s.appended ? " (appended)" : (s.replaced ? " (replaced)" : ""), s.rows_in_set);
      if (s.rows_dropped > 0) {
        std::printf("dropped %zu of %zu rows with an invalid target '%s' (--drop-invalid)\n",
                    s.rows_dropped, s.rows_read, o->target.c_str());
      }
      return 0;
    };
  });
}

}  // namespace perfit::app
