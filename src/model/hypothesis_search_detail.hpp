// Shared by the single- and two-parameter searches (hypothesis_search.cpp, hypothesis_combine.cpp).
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "perfit/model/hypothesis_search.hpp"

namespace perfit::model::detail {

inline constexpr double kMinContribution = 0.0005;  // Extra-P's epsilon: 0.05% of a value

struct Points {
  std::vector<std::vector<double>> x;  // one coordinate (a value per parameter) per point
  std::vector<double> y;               // the mean of the repetitions at that point
};

double smape_term(double predicted, double actual);
Eigen::VectorXd least_squares(const Eigen::MatrixXd& a, const Eigen::VectorXd& b);
Points mean_per_point(const std::vector<std::vector<double>>& x, const std::vector<double>& y);
PmnfHypothesis constant_model(const Points& pts);
double max_contribution(const PmnfTerm& t, const Points& pts);
// c0 and every term's coefficient by least squares over the points except `skip` (-1: none).
void fit_coefficients(PmnfHypothesis& h, const Points& pts, long skip);
bool finite(const PmnfHypothesis& h);
// Extra-P's basic modeler over coordinate `param` of the points (leave-one-out SMAPE).
PmnfHypothesis single_parameter(const Points& pts, std::size_t param, const SearchOptions& opt);

}  // namespace perfit::model::detail
