#pragma once
// A small horizontal bar chart as a standalone SVG file, for `stats --svg`.
// No dependencies: the chart is a few rectangles and labels.
#include <string>
#include <vector>

namespace docshard::cli {

struct BarSeries {
  std::string Name;            // legend text
  std::string Color;           // CSS colour
  std::vector<double> Values;  // fractions in [0, 1], one per label
};

// Labels and names are escaped for XML here.
std::string RenderBarChart(std::string const& title, std::vector<std::string> const& labels,
                           std::vector<BarSeries> const& series, std::string const& emptyNote);

}  // namespace docshard::cli
