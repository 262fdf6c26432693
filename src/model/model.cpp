#include "perfit/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "perfit/core/assert.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/text.hpp"

namespace perfit::model {

namespace {

std::vector<std::string> factors_of_valid(const ModelSpec& spec) {
  std::vector<std::string> declared, out, seen_terms;
  for (const auto& p : spec.params) declared.push_back(p.name);
  for (const auto& [n, v] : spec.constants) declared.push_back(n);
  std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& e) {
    for (const auto& id : identifiers(e)) {
      auto t = std::find_if(spec.terms.begin(), spec.terms.end(),
                            [&](const TermSpec& ts) { return ts.name == id; });
      if (t != spec.terms.end()) {
        if (std::find(seen_terms.begin(), seen_terms.end(), id) == seen_terms.end()) {
          seen_terms.push_back(id);
          walk(parse_expression(t->expression));
        }
      } else if (std::find(declared.begin(), declared.end(), id) == declared.end() &&
                 std::find(out.begin(), out.end(), id) == out.end()) {
        out.push_back(id);
      }
    }
  };
  walk(parse_expression(spec.expression));
  if (out.empty()) return spec.factors;  // a constant model: the factors it is constant in
  return out;
}

void check_bounds(const ParamSpec& p, const std::string& where) {
  const std::string pw = where + " param '" + p.name + "'";
  if (!std::isfinite(p.lo) || !std::isfinite(p.hi)) {
    throw ConfigError(pw + " has non-finite bounds [" + format_g(p.lo) + ", " + format_g(p.hi) +
                      "]; give finite [lo, hi]");
  }
  if (!(p.lo < p.hi)) {
    throw ConfigError(pw + " has bounds [" + format_g(p.lo) + ", " + format_g(p.hi) +
                      "]: lo must be below hi" +
                      (p.lo == p.hi ? " (for a fixed value use 'constants:')" : ""));
  }
  if (p.log_scale && p.lo <= 0.0) {
    throw ConfigError(pw + " is log-scaled but its lower bound " + format_g(p.lo) +
                      " is <= 0; log bounds must be > 0 (e.g. [1e-9, " + format_g(p.hi) +
                      ", log])");
  }
}

std::string where_of(const ModelSpec& spec) {
  return "model '" + spec.name + "'" + (spec.origin.empty() ? "" : " (" + spec.origin + ")");
}

// Everything a compiled model depends on but the params' bounds and the spec's words (name,
// description, origin): two specs with the same key compile to the same tapes.
std::string compile_key(const ModelSpec& s, const std::vector<std::string>& columns) {
  std::string k;
  const auto add_number = [&k](auto v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  const auto add = [&](const std::string& text) {  // its length first: no text ends another
    add_number(text.size());
    k += text;
  };
  add(s.expression);
  for (const auto& p : s.params) add(p.name);
  k.push_back('\x1e');
  for (const auto& [n, v] : s.constants) {
    add(n);
    add_number(v);
  }
  k.push_back('\x1e');
  for (const auto& t : s.terms) {
    add(t.name);
    add(t.expression);
  }
  k.push_back('\x1e');
  for (const auto& f : s.factors) add(f);
  k.push_back('\x1e');
  for (const auto& pool : s.pools) {
    add(pool.constant);
    for (const auto& p : pool.params) add(p);
    add_number(pool.strength);
    add_number(pool.scale);
  }
  k.push_back('\x1e');
  for (const auto& c : columns) add(c);
  return k;
}

}  // namespace

void ModelSpec::validate() const {
  const std::string where = where_of(*this);
  if (name.empty()) throw ConfigError("a model needs a 'name'");
  if (expression.empty()) throw ConfigError(where + " has no 'expression'");
  std::vector<std::string> names;
  auto declare = [&](const std::string& n, const char* kind) {
    if (!is_identifier(n)) {
      throw ConfigError(where + ": " + kind + " name '" + n +
                        "' is not an identifier (letters, digits, _; not starting with a digit)");
    }
    if (std::find(names.begin(), names.end(), n) != names.end()) {
      throw ConfigError(where + ": name '" + n +
                        "' is declared twice (params, constants and "
                        "terms share one namespace)");
    }
    names.push_back(n);
  };
  for (const auto& p : params) {
    declare(p.name, "param");
    check_bounds(p, where);
  }
  for (const auto& [n, v] : constants) {
    declare(n, "constant");
    if (!std::isfinite(v)) throw ConfigError(where + " constant '" + n + "' is not finite");
  }
  std::vector<std::pair<std::string, ExprPtr>> parsed;
  for (const auto& t : terms) {
    declare(t.name, "term");
    parsed.emplace_back(t.name, parse_expression(t.expression, where + " term '" + t.name + "'"));
  }
  const ExprPtr root = parse_expression(expression, where + " expression");

  // Walk the expression through its terms: cycles are errors, and so is a param or term that
  // nothing uses (it would get a meaningless "fitted" value, or be a typo of a used name).
  std::vector<std::string> used, stack;
  std::function<void(const ExprPtr&)> walk = [&](const ExprPtr& e) {
    for (const auto& id : identifiers(e)) {
      auto t =
          std::find_if(parsed.begin(), parsed.end(), [&](const auto& p) { return p.first == id; });
      if (t != parsed.end() && std::find(stack.begin(), stack.end(), id) != stack.end()) {
        std::string chain;
        for (const auto& s : stack) chain += s + " -> ";
        throw ConfigError(where + ": term '" + id + "' refers to itself (" + chain + id + ")");
      }
      const bool first = std::find(used.begin(), used.end(), id) == used.end();
      if (first) used.push_back(id);
      if (t != parsed.end()) {
        stack.push_back(id);
        walk(t->second);
        stack.pop_back();
      }
    }
  };
  walk(root);
  if (!factors.empty()) {
    for (const auto& f : factors) declare(f, "factor");
    for (const auto& id : used) {
      if (std::find(names.begin(), names.end(), id) == names.end()) {
        throw ConfigError(where + ": unknown name '" + id +
                          "': not a param, constant, term or "
                          "declared factor (factors: " +
                          join(factors) + ")");
      }
    }
    // A model that reads no factor at all is constant in the ones it declares (Extra-P's
    // constant hypothesis); otherwise an unused declared factor is a typo.
    const bool reads_any = std::any_of(factors.begin(), factors.end(), [&](const std::string& f) {
      return std::find(used.begin(), used.end(), f) != used.end();
    });
    for (const auto& f : factors) {
      if (reads_any && std::find(used.begin(), used.end(), f) == used.end()) {
        throw ConfigError(where + ": factor '" + f + "' is declared but never used");
      }
    }
  }
  for (const auto& p : params) {
    if (std::find(used.begin(), used.end(), p.name) == used.end()) {
      throw ConfigError(where + ": param '" + p.name +
                        "' is never used by the expression or its "
                        "terms, so no data could determine it; remove it or use it");
    }
  }
  for (const auto& t : terms) {
    if (std::find(used.begin(), used.end(), t.name) == used.end()) {
      throw ConfigError(where + ": term '" + t.name +
                        "' is never used by the expression; remove "
                        "it or use it");
    }
  }
}

Model::Model(ModelSpec spec, const std::vector<std::string>& columns)
    : c_(compiled(spec, columns).c_) {
  // The memo's tapes; only the bounds (and the words) are this spec's.
  if (spec.name.empty()) throw ConfigError("a model needs a 'name'");
  for (const auto& p : spec.params) check_bounds(p, where_of(spec));
  spec_ = std::move(spec);
}

const Model& Model::compiled(const ModelSpec& spec, const std::vector<std::string>& columns) {
  // Kept by what the tapes depend on: a selection over 10^4 sets fits a winner per set whose
  // hypothesis is one of a few dozen, and compiling it was 7% of that run. Per thread (models
  // are built on fold threads too), and bounded.
  thread_local std::unordered_map<std::string, Model> memo;
  std::string key = compile_key(spec, columns);
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  if (memo.size() >= kCompiledKept) memo.clear();
  Model made(spec, columns, key);
  return memo.emplace(std::move(key), std::move(made)).first->second;
}

Model::Model(ModelSpec spec, const std::vector<std::string>& columns, std::string compiled_as)
    : spec_(std::move(spec)) {
  auto made = std::make_shared<Compiled>();
  c_ = made;  // resolve() reads it while it is being made
  Compiled& c = *made;
  c.table_columns = columns;
  c.table_column_set.insert(columns.begin(), columns.end());
  c.compiled_as = std::move(compiled_as);
  spec_.validate();
  const std::string where = "model '" + spec_.name + "'";
  for (const auto& p : spec_.params) {
    c.param_index.emplace(p.name, c.param_names.size());
    c.param_names.push_back(p.name);
    if (c.table_column_set.count(p.name) > 0) {
      throw ConfigError(where + ": param '" + p.name +
                        "' has the name of a column of the set; rename the param");
    }
  }
  for (const auto& pool : spec_.pools) {
    Pool q;
    for (const auto& name : pool.params) {
      const auto it = std::find(c.param_names.begin(), c.param_names.end(), name);
      if (it == c.param_names.end())
        throw ConfigError(where + ": pooled constant '" + name + "' is no param");
      q.params.push_back(static_cast<std::size_t>(it - c.param_names.begin()));
    }
    if (!(pool.strength >= 0.0) || !std::isfinite(pool.strength) || !(pool.scale > 0.0) ||
        !std::isfinite(pool.scale)) {
      throw ConfigError(where + ": the pool of '" + pool.constant +
                        "' needs a strength >= 0 and a scale > 0, found " +
                        format_g(pool.strength) + " and " + format_g(pool.scale));
    }
    q.weight = pool.strength / (pool.scale * pool.scale);
    if (q.weight > 0.0 && q.params.size() > 1) c.pools.push_back(std::move(q));
  }
  for (const auto& t : spec_.terms) {
    c.parsed_terms.emplace_back(t.name, parse_expression(t.expression, where + " term " + t.name));
  }
  c.root = parse_expression(spec_.expression, where + " expression");
  const ExprPtr& root = c.root;

  // Check every identifier (through terms) before compiling, so the error lists choices.
  std::vector<std::string> stack;
  std::function<void(const ExprPtr&)> check = [&](const ExprPtr& e) {
    for (const auto& id : identifiers(e)) {
      const Binding b = resolve(id, stack);
      if (b.kind == Binding::Kind::unknown) {
        std::vector<std::string> declared = c.param_names;
        for (const auto& [n, v] : spec_.constants) declared.push_back(n);
        for (const auto& t : spec_.terms) declared.push_back(t.name);
        throw ConfigError(where + ": unknown identifier '" + id +
                          "'. The set's columns: " + join(c.table_columns) +
                          ". Declared params, constants and terms: " + join(declared));
      }
      if (b.kind == Binding::Kind::term) {
        if (std::find(stack.begin(), stack.end(), id) != stack.end()) {
          throw ConfigError(where + ": term '" + id + "' refers to itself (through " + join(stack) +
                            ")");
        }
        stack.push_back(id);
        check(b.term);
        stack.pop_back();
      }
    }
  };
  check(root);

  const Resolver resolver = [this, &c](const std::string& name) {
    std::vector<std::string> unused;
    Binding b = resolve(name, unused);
    if (b.kind == Binding::Kind::column) {
      auto it = std::find(c.columns_used.begin(), c.columns_used.end(), name);
      if (it == c.columns_used.end()) {
        c.columns_used.push_back(name);
        it = c.columns_used.end() - 1;
      }
      b.index = static_cast<std::int32_t>(it - c.columns_used.begin());
    }
    return b;
  };
  c.tape = compile(root, resolver);
  for (const auto& term : additive_terms(root)) {
    // A term without a name of its own is called by what it computes ("c1*p^(1/2)"): a
    // searched hypothesis's terms say which is which.
    c.term_names.push_back(expression_text(term));
    c.term_tapes.push_back(compile(term, resolver));
  }
  c.factors = factors_of_valid(spec_);
}

std::vector<std::string> Model::factors(const ModelSpec& spec) {
  spec.validate();
  return factors_of_valid(spec);
}

Binding Model::resolve(const std::string& name, std::vector<std::string>&) const {
  Binding b;
  if (const auto at = c_->param_index.find(name); at != c_->param_index.end()) {
    b.kind = Binding::Kind::param;
    b.index = static_cast<std::int32_t>(at->second);
    return b;
  }
  for (const auto& [n, v] : spec_.constants) {
    if (n == name) {
      b.kind = Binding::Kind::constant;
      b.value = v;
      return b;
    }
  }
  for (const auto& [n, e] : c_->parsed_terms) {
    if (n == name) {
      b.kind = Binding::Kind::term;
      b.term = e;
      return b;
    }
  }
  if (c_->table_column_set.count(name) > 0) b.kind = Binding::Kind::column;
  return b;
}

Binding Model::bind(const std::string& name) const {
  std::vector<std::string> unused;
  Binding b = resolve(name, unused);
  if (b.kind == Binding::Kind::column) {
    const auto& used = c_->columns_used;
    const auto it = std::find(used.begin(), used.end(), name);
    PERFIT_ASSERT(it != used.end(), "bind: a column the expression does not read");
    b.index = static_cast<std::int32_t>(it - used.begin());
  }
  return b;
}

Tape Model::compile_part(const ExprPtr& e) const {
  return compile(e, [this](const std::string& name) { return bind(name); });
}

double Model::to_unit(std::size_t i, double value) const {
  const ParamSpec& p = spec_.params[i];
  if (p.log_scale) return (std::log(value) - std::log(p.lo)) / (std::log(p.hi) - std::log(p.lo));
  return (value - p.lo) / (p.hi - p.lo);
}

double Model::from_unit(std::size_t i, double u) const {
  const ParamSpec& p = spec_.params[i];
  if (p.log_scale) return std::exp(std::log(p.lo) + u * (std::log(p.hi) - std::log(p.lo)));
  return p.lo + u * (p.hi - p.lo);
}

Eigen::VectorXd Model::params_from_unit(const Eigen::VectorXd& u) const {
  Eigen::VectorXd x(u.size());
  for (Eigen::Index k = 0; k < u.size(); ++k) x(k) = from_unit(static_cast<std::size_t>(k), u(k));
  return x;
}

double Model::pooling(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  double total = 0.0;
  for (const Pool& p : c_->pools) {
    double mean = 0.0;
    for (const std::size_t i : p.params) mean += x(static_cast<Eigen::Index>(i));
    mean /= static_cast<double>(p.params.size());
    double ss = 0.0;
    for (const std::size_t i : p.params)
      ss += (x(static_cast<Eigen::Index>(i)) - mean) * (x(static_cast<Eigen::Index>(i)) - mean);
    total += p.weight * ss;
  }
  return total;
}

}  // namespace perfit::model
