#include "perfit/job/analysis_set.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "perfit/core/error.hpp"
#include "perfit/data/row_validity.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/job/set_binding.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/mpi/agreement.hpp"

namespace perfit::job {

bool is_joint_option(const std::string& key) {
  return key == "by" || key == "shared" || key == "per_group" || key == "pooled" ||
         key == "pool_strength";
}

const OptionTable<fit::RunConfig>& analysis_option_table(bool with_out, bool joint) {
  static const auto make = [](bool out, bool groups) {
    OptionTable<fit::RunConfig> t;
    for (const auto& o : fit::run_config_option_table()) {
      const bool single = o.key == "checkpoint_dir" || o.key == "checkpoint_every" ||
                          o.key == "progress_every" || o.key.rfind("islands.", 0) == 0 ||
                          (!groups && is_joint_option(o.key));
      if (!single && (out || o.key != "out")) t.push_back(o);
    }
    return t;
  };
  static const OptionTable<fit::RunConfig> tables[2][2] = {{make(false, false), make(false, true)},
                                                           {make(true, false), make(true, true)}};
  return tables[with_out][joint];
}

void Ranks::agreed(const std::function<void()>& fn) const {
  if (parallel()) {
    mpi::all_or_none(MPI_COMM_WORLD, fn);
  } else {
    fn();
  }
}

namespace {

io::SetInfo describe(const fit::RunConfig& cfg, const SetSource& source) {
  if (!source.given) return io::describe_set(cfg.data, cfg.set);
  io::SetInfo info{cfg.set, source.given->rows(), {}, source.given->attributes()};
  for (const auto& col : source.given->columns()) info.columns.push_back({col.name(), col.type()});
  return info;
}

}  // namespace

std::vector<std::string> set_columns(const fit::RunConfig& cfg, const SetSource& source) {
  std::vector<std::string> names;
  for (const auto& c : describe(cfg, source).columns) names.push_back(c.name);
  return names;
}

std::shared_ptr<const model::Model> bind_model(const std::string& name_or_path,
                                               const fit::RunConfig& cfg,
                                               const std::vector<std::string>& columns, bool note,
                                               const SetSource& source) {
  const BoundSpec bound =
      bind_to_set(io::load_model(name_or_path), cfg.factors, describe(cfg, source),
                  "'" + cfg.data + "' set '" + cfg.set + "'");
  if (note) note_unused(bound);
  return std::make_shared<const model::Model>(bound.spec, columns);
}

AnalysisSet load_analysis_set(const fit::RunConfig& cfg, std::vector<std::string> columns,
                              const SetSource& source) {
  const std::shared_ptr<const io::StoreReader> reader =
      source.given ? nullptr : io::open_store(cfg.data);
  const io::SetInfo info = reader ? reader->info(cfg.set) : describe(cfg, source);
  AnalysisSet s;
  for (const auto& c : info.columns) s.set_columns.push_back(c.name);
  s.target =
      info.attributes.count("target") ? data::attribute_text(info.attributes.at("target")) : "";
  if (s.target.empty()) {
    throw DataError("'" + cfg.data + "' set '" + cfg.set +
                    "' has no 'target' attribute naming its "
                    "measured-time column; re-import it with --target");
  }
  for (const std::string& extra : {s.target, cfg.cost.weight_column}) {
    if (!extra.empty()) columns.push_back(extra);
  }
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  auto table = std::make_shared<data::MeasurementTable>();
  if (reader) {
    *table = reader->read(cfg.set, columns);
  } else {
    for (const auto& name : columns) {
      if (!source.given->find(name)) {
        throw DataError("'" + cfg.data + "' set '" + cfg.set + "' has no column '" + name + "'");
      }
      table->add_column(source.given->column(name));
    }
    table->attributes() = source.given->attributes();
  }
  const data::RowValidity v = data::check_rows(*table, columns);
  if (v.rows_invalid > 0 && !cfg.drop_invalid) {
    throw DataError("'" + cfg.data + "' set '" + cfg.set +
                    "' has NaN or inf values the models need: " + data::describe_invalid(v) +
                    ". Fix the data, or drop those rows with --drop-invalid");
  }
  if (v.rows_invalid > 0) {
    table->filter_rows(v.keep);
    spdlog::info("dropped {} of {} rows with NaN or inf ({}; drop_invalid)", v.rows_invalid,
                 info.rows, data::describe_invalid(v));
  }
  if (table->rows() == 0) {
    throw DataError("'" + cfg.data + "' set '" + cfg.set + "' has no rows" +
                    (v.rows_invalid > 0 ? " left once the " + std::to_string(v.rows_invalid) +
                                              " with NaN or inf are dropped"
                                        : "") +
                    "; nothing to fit: import its measurements first");
  }
  s.dropped = v.rows_invalid;
  s.rows = table;
  return s;
}

}  // namespace perfit::job
