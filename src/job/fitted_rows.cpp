#include "perfit/job/fitted_rows.hpp"

#include <algorithm>
#include <filesystem>

#include "perfit/model/evaluator.hpp"

namespace perfit::job {

KeptRows keep_rows(const model::ModelSpec& spec, const data::MeasurementTable& rows,
                   const std::string& target, const Eigen::VectorXd& x, std::size_t max_rows) {
  KeptRows out;
  const std::size_t n = rows.rows();
  out.stride = n > max_rows ? (n + max_rows - 1) / max_rows : 1;
  std::vector<bool> keep(n, false);
  for (std::size_t i = 0; i < n; i += out.stride) keep[i] = true;
  std::vector<std::string> names = model::Model::factors(spec);
  names.push_back(target);
  for (const auto& name : names) {
    const data::Column* c = rows.find(name);
    if (!c || out.rows.find(name)) continue;  // a factor the model declares but no column holds
    data::Column kept = *c;
    if (out.stride > 1) kept.filter(keep);
    out.rows.add_column(std::move(kept));
  }
  const model::Model m(spec, out.rows.column_names());
  const Eigen::VectorXd predicted =
      model::Evaluator(m, out.rows).predict(x);  // no target attribute: predictions only
  const std::vector<double> measured = out.rows.column(target).to_double();
  std::vector<double> p(predicted.begin(), predicted.end()), residual(measured.size());
  for (std::size_t i = 0; i < measured.size(); ++i) residual[i] = measured[i] - p[i];
  out.rows.add_column(data::Column("predicted", std::move(p)));
  out.rows.add_column(data::Column("residual", std::move(residual)));
  return out;
}

// Kept for the last pair: a selection asks for the same one per winner, and these filesystem calls
// were a tenth of a winner's set-up.
std::string data_from_result(const std::string& data, const std::string& out) {
  thread_local std::string last_data, last_out, last_cwd, last;
  std::error_code ec;
  // Python may chdir between fits; two absolute paths do not depend on it.
  const bool absolute = !data.empty() && !out.empty() && data.front() == '/' && out.front() == '/';
  const std::string cwd = absolute ? std::string() : std::filesystem::current_path(ec).string();
  if (data == last_data && out == last_out && cwd == last_cwd) return last;
  std::string rel;
  if (!out.empty() && std::filesystem::is_regular_file(data, ec)) {
    const std::filesystem::path dir = std::filesystem::absolute(out, ec).parent_path();
    rel = std::filesystem::relative(std::filesystem::absolute(data, ec), dir, ec).string();
  }
  last_data = data;
  last_out = out;
  last_cwd = cwd;
  last = rel;
  return rel;
}

}  // namespace perfit::job
