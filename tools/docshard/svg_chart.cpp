#include "svg_chart.hpp"

#include "json_text.hpp"
#include "resolver_description.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace docshard::cli {

namespace {
std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Long collection names would push the bars off the page; the full name is
// kept in a <title> tooltip.
std::string Shorten(std::string const& label, std::size_t max) {
  if (label.size() <= max) return label;
  std::size_t cut = max - 3;
  while (cut > 0 && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return label.substr(0, cut) + "...";
}
}  // namespace

std::string RenderBarChart(std::string const& title, std::vector<std::string> const& labels,
                           std::vector<BarSeries> const& series, std::string const& emptyNote) {
  constexpr double barHeight = 16, barGap = 2, rowGap = 10, top = 56, barArea = 480, valueWidth = 90;
  constexpr std::size_t maxLabel = 48;
  std::size_t longest = 4;
  for (auto const& l : labels) longest = std::max(longest, std::min(Shorten(l, maxLabel).size(), maxLabel));
  double const labelWidth = 16 + 7.2 * static_cast<double>(longest);
  double const rowHeight = static_cast<double>(series.size()) * (barHeight + barGap) + rowGap;
  double const width = labelWidth + barArea + valueWidth;
  double const height = top + std::max(1.0, static_cast<double>(labels.size())) * rowHeight + 16;

  double maxValue = 0;
  for (auto const& s : series)
    for (double v : s.Values)
      if (std::isfinite(v)) maxValue = std::max(maxValue, v);
  if (maxValue <= 0) maxValue = 1;

  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(width) + "\" height=\"" + Num(height) +
         "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + Num(width) + "\" height=\"" + Num(height) + "\" fill=\"#ffffff\"/>\n";
  svg += "<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">" + XmlEscape(title) + "</text>\n";
  double legendX = 8;
  for (auto const& s : series) {
    svg += "<rect x=\"" + Num(legendX) + "\" y=\"30\" width=\"12\" height=\"12\" fill=\"" + XmlEscape(s.Color) + "\"/>";
    svg += "<text x=\"" + Num(legendX + 16) + "\" y=\"40\">" + XmlEscape(s.Name) + "</text>\n";
    legendX += 32 + 7.2 * static_cast<double>(s.Name.size());
  }
  if (series.empty() || labels.empty()) {
    svg += "<text x=\"8\" y=\"" + Num(top + 14) + "\">" + XmlEscape(emptyNote) + "</text>\n";
  }
  for (std::size_t i = 0; i < labels.size() && !series.empty(); ++i) {
    double const rowY = top + static_cast<double>(i) * rowHeight;
    svg += "<g>\n<title>" + XmlEscape(labels[i]) + "</title>\n";
    svg += "<text x=\"" + Num(labelWidth - 8) + "\" y=\"" + Num(rowY + barHeight - 4) + "\" text-anchor=\"end\">" +
           XmlEscape(Shorten(labels[i], maxLabel)) + "</text>\n";
    for (std::size_t k = 0; k < series.size(); ++k) {
      double const v = i < series[k].Values.size() && std::isfinite(series[k].Values[i]) ? series[k].Values[i] : 0;
      double const y = rowY + static_cast<double>(k) * (barHeight + barGap);
      double const w = barArea * std::clamp(v / maxValue, 0.0, 1.0);
      svg += "<rect x=\"" + Num(labelWidth) + "\" y=\"" + Num(y) + "\" width=\"" + Num(w) + "\" height=\"" +
             Num(barHeight) + "\" fill=\"" + XmlEscape(series[k].Color) + "\"/>";
      svg += "<text x=\"" + Num(labelWidth + w + 4) + "\" y=\"" + Num(y + barHeight - 4) + "\">" +
             XmlEscape(Percent(v)) + "</text>\n";
    }
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace docshard::cli
