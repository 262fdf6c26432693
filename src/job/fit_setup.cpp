#include "fit_setup.hpp"

#include <algorithm>
#include <filesystem>

#include "perfit/core/error.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/set_glob.hpp"
#include "perfit/job/fit_checkpoint.hpp"
#include "perfit/job/set_binding.hpp"
#include "perfit/job/several_sets.hpp"
#include "perfit/model/grouped_model.hpp"
#include "streamed_rows.hpp"

namespace perfit::job {

fit::FitProblem fit_problem(const FitSetup& s, const std::shared_ptr<data::MeasurementTable>& table,
                            bool quiet) {
  const fit::RunConfig& cfg = s.cfg;
  fit::FitProblem p;
  p.model = s.model;
  p.rows = table;
  p.cost = cfg.cost;
  if (s.streamed && table.get() == &s.streamed->table) {
    p.streamed = s.streamed;
    p.cost = streamed_cost(cfg.cost);
  }
  p.threads = cfg.threads;
  p.compress = cfg.compress;
  p.quiet = quiet;
  p.separable = cfg.separable;
  p.scale = cfg.scale;
  p.bootstrap = cfg.bootstrap;
  p.ci = cfg.ci;
  return p;
}

namespace {

// The set's description (and with rows in memory or several sets, its rows): every rank.
void describe_set(const FitJob& a, FitSetup& s, bool several, int world_size) {
  const fit::RunConfig& c = s.cfg;
  if (a.table) {
    if (world_size > 1)
      throw ConfigError("rows given in memory are fitted serially; run MPI fits with the CLI");
    s.given = a.table;
    s.info = {c.set, a.table->rows(), {}, a.table->attributes()};
    for (const auto& col : a.table->columns()) s.info.columns.push_back({col.name(), col.type()});
  } else if (several) {
    s.store = io::open_store(c.data);
    SeveralSets sets = read_several_sets(*s.store, c.set);
    s.given = std::move(sets.rows);
    s.info = std::move(sets.info);
  } else {
    s.store = io::open_store(c.data);
    s.info = s.store->info(c.set);
  }
  if (s.info.rows == 0) {
    throw DataError("'" + c.data + "' set '" + c.set +
                    "' has no rows; nothing to fit: import its measurements first");
  }
  s.target =
      s.info.attributes.count("target") ? data::attribute_text(s.info.attributes.at("target")) : "";
  if (s.target.empty()) {
    throw DataError("'" + c.data + "' set '" + c.set +
                    "' has no 'target' attribute naming its "
                    "measured-time column; re-import it with --target");
  }
  // The set's own fingerprint, written at import: the same whatever rows a rank loads.
  s.checksum = s.info.attributes.count("checksum")
                   ? data::attribute_text(s.info.attributes.at("checksum"))
                   : "none (store written before perfit kept set checksums)";
}

// The model bound to the set's columns (and to the groups of a joint fit), and the columns the
// fit loads.
void bind_model(const FitJob& a, FitSetup& s, int rank) {
  const fit::RunConfig& c = s.cfg;
  std::vector<std::string> names;
  for (const auto& col : s.info.columns) names.push_back(col.name);
  if (a.model) {
    s.spec = *a.model;
  } else {
    const BoundSpec bound = bind_to_set(io::load_model(c.model), c.factors, s.info,
                                        "'" + c.data + "' set '" + c.set + "'");
    if (rank == 0) note_unused(bound);
    s.spec = bound.spec;
  }
  if (!c.by.empty()) {  // every rank reads the --by columns of the whole set
    s.joint = plan_joint_fit(
        c, s.spec, names,
        [&](const std::vector<std::string>& by) {
          data::MeasurementTable keys;
          if (!s.given) return s.store->read(c.set, by);
          for (const auto& col : by) keys.add_column(s.given->column(col));
          return keys;
        },
        "'" + c.data + "' set '" + c.set + "'");
  }
  s.columns = names;
  s.model = std::make_shared<const model::Model>(s.spec, names);
  s.load =
      s.model->factors();  // columns_used, and the factors a constant model declares (their ranges)
  for (const std::string& extra : {s.target, c.cost.weight_column, c.scale}) {
    if (!extra.empty() && std::find(s.load.begin(), s.load.end(), extra) == s.load.end()) {
      s.load.push_back(extra);
    }
  }
  for (const auto& col : s.load) {
    if (!model::is_group_indicator(col)) s.read.push_back(col);
  }
  for (const auto& col : s.joint.groups.by) {
    if (std::find(s.read.begin(), s.read.end(), col) == s.read.end()) s.read.push_back(col);
  }
  if (s.given && !a.table)
    s.given = std::make_shared<data::MeasurementTable>(only_columns(*s.given, s.read));
}

// What a checkpoint of this run records, and with --resume the checkpoint (world rank 0).
void prepare_checkpoints(const FitJob& a, FitSetup& s, int rank, int world_size) {
  const fit::RunConfig& c = s.cfg;
  // Only a run with checkpoints records one (its YAML is a third of a small fit's set-up).
  if (!c.checkpoint_dir.empty())
    s.header = checkpoint_header(s.cfg, io::model_to_yaml(s.spec), s.checksum, world_size);
  if (a.resume && c.checkpoint_dir.empty()) {
    throw ConfigError("--resume needs --checkpoint-dir DIR (or checkpoint_dir: in the config)");
  }
  if (rank == 0 && !c.checkpoint_dir.empty()) {
    // Resume first: a damaged checkpoint is then reported as such, not as a file of another kind.
    if (a.resume) s.resume_from = load_for_resume(s.cfg, s.header);
    prepare_checkpoint_dir(c.checkpoint_dir);
  }
}

}  // namespace

void prepare(const FitJob& a, FitSetup& s, int rank, int world_size) {
  s.cfg = a.cfg;
  const bool several =
      !a.table && io::is_set_glob(s.cfg.set);  // several sets fitted together, each a group
  if (several && s.cfg.by.empty()) s.cfg.by = kSetColumn;
  s.cfg.resolve(a.write);
  const fit::RunConfig& c = s.cfg;
  if (world_size > 1) s.cfg.islands.validate(world_size);
  if (rank == 0 && a.write) {  // only rank 0 writes; checked before any data is read
    std::error_code ec;
    std::vector<std::string> inputs = a.inputs;
    inputs.push_back(c.data);
    if (!a.model && std::filesystem::is_regular_file(c.model, ec)) inputs.push_back(c.model);
    io::check_output({c.out, "--out", io::FileKind::result, inputs, a.force});
  }
  describe_set(a, s, several, world_size);
  bind_model(a, s, rank);
  prepare_checkpoints(a, s, rank, world_size);
}

}  // namespace perfit::job
