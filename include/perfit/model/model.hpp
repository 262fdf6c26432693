// A performance model: an expression of measured factors (columns) and fitted constants
// (params, each with bounds, optionally searched in log space), fixed constants, and named
// sub-expressions (terms). Binding it to a set's columns compiles it to tapes: one for the
// whole expression and one per top-level additive term, for per-term contributions.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "perfit/model/expression.hpp"
#include "perfit/model/tape.hpp"

namespace perfit::model {

struct ParamSpec {
  std::string name;
  double lo = 0.0, hi = 0.0;
  bool log_scale = false;  // search log(lo)..log(hi): for constants spanning decades
};

struct TermSpec {
  std::string name;
  std::string expression;
};

// Constants drawn toward their common value (a joint fit's pooled constant, one copy per
// group): the cost adds strength * sum_g ((x_g - mean of the x)/scale)^2, a penalised form of
// a random-effects model (model/grouped_model.hpp). strength 0: independent copies.
struct PoolSpec {
  std::string constant;             // what the copies are of, for messages
  std::vector<std::string> params;  // the copies: params of the spec
  double strength = 0.0, scale = 1.0;
};

struct ModelSpec {
  std::string name;
  std::string description;
  std::string origin;  // "built-in" or the YAML file
  std::string expression;
  std::vector<ParamSpec> params;
  std::vector<std::pair<std::string, double>> constants;
  std::vector<TermSpec> terms;
  // Optional: the columns the model reads. When given, any other name is an error at load
  // (a typo such as `q` for `p` is caught without data); when empty, every name that is not
  // declared is a factor, checked against the set's columns at fit time.
  std::vector<std::string> factors;
  // Pooling penalties among params (joint fits only; not part of the model's YAML: the fit
  // derives them from its options).
  std::vector<PoolSpec> pools;

  // Throws: ConfigError naming the param (no bounds, inverted, log bound <= 0, non-finite),
  // a duplicate name, or a syntax error with a caret.
  void validate() const;
};

class Model {
 public:
  // Throws: ConfigError as validate(); DataError for an identifier that is neither a column
  // nor a param/constant/term (listing both), or for terms that refer to themselves.
  Model(ModelSpec spec, const std::vector<std::string>& columns);

  // The factors (column names) a spec reads: identifiers that are not params, constants or
  // terms, through all terms; for a constant model, the factors it declares (it is constant in
  // them, and predictions still name them). Throws: ConfigError as validate().
  static std::vector<std::string> factors(const ModelSpec& spec);
  // factors(spec()), kept: a selection over many sets asks for it per winner.
  const std::vector<std::string>& factors() const { return c_->factors; }

  const ModelSpec& spec() const { return spec_; }
  std::size_t n_params() const { return spec_.params.size(); }
  const std::vector<std::string>& param_names() const { return c_->param_names; }
  // Columns the expression reads, in the tapes' column-index order.
  const std::vector<std::string>& columns_used() const { return c_->columns_used; }

  const Tape& tape() const { return c_->tape; }
  // The parsed expression (terms referenced by name) and what one of its names means, with
  // columns indexed as in the tapes. For analyses that rewrite the expression (separable.hpp).
  const ExprPtr& expression() const { return c_->root; }
  Binding bind(const std::string& name) const;
  // Compiles a part or rewrite of expression() whose names all occur in it.
  Tape compile_part(const ExprPtr& e) const;
  const std::vector<std::string>& term_names() const { return c_->term_names; }
  const std::vector<Tape>& term_tapes() const { return c_->term_tapes; }

  // The pools with their params as indices; weight = strength / scale^2.
  struct Pool {
    std::vector<std::size_t> params;
    double weight = 0.0;
  };
  const std::vector<Pool>& pools() const { return c_->pools; }
  // What its tapes were compiled from (the expression, names, constants, terms, pools and the
  // set's columns; not the bounds): equal for models whose tapes are the same.
  const std::string& compiled_as() const { return c_->compiled_as; }
  // sum over pools of weight * sum_g (x_g - mean)^2 (0 without pools).
  double pooling(const Eigen::Ref<const Eigen::VectorXd>& x) const;

  // Parameter vector <-> unit cube [0,1]^n by the bounds (log-aware). DE searches the cube.
  double to_unit(std::size_t i, double value) const;
  double from_unit(std::size_t i, double u) const;
  // A whole unit-cube point as parameter values.
  Eigen::VectorXd params_from_unit(const Eigen::VectorXd& u) const;

 private:
  static constexpr std::size_t kCompiledKept = 256;
  Model(ModelSpec spec, const std::vector<std::string>& columns, std::string compiled_as);
  static const Model& compiled(const ModelSpec& spec, const std::vector<std::string>& columns);
  Binding resolve(const std::string& name, std::vector<std::string>& stack) const;

  // What compiling made: shared by every model of the same expression and columns (each
  // winner of a selection over 10^4 sets copied all of it: 1.7% of that run).
  struct Compiled {
    std::vector<std::string> table_columns;
    std::vector<std::string> param_names;
    // Names to places: a joint fit's expression names hundreds of params and columns, each
    // looked up once per occurrence whenever a part of it is compiled.
    std::unordered_map<std::string, std::size_t> param_index;
    std::unordered_set<std::string> table_column_set;
    std::vector<std::string> columns_used;
    std::vector<std::string> factors;
    std::vector<std::pair<std::string, ExprPtr>> parsed_terms;
    ExprPtr root;
    Tape tape;
    std::vector<std::string> term_names;
    std::vector<Tape> term_tapes;
    std::vector<Pool> pools;
    std::string compiled_as;
  };

  ModelSpec spec_;
  std::shared_ptr<const Compiled> c_;
};

}  // namespace perfit::model
