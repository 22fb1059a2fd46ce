// The overview's charts, drawn with Chart.js from the tables the server rendered: the tables hold the numbers
// (and stay for screen readers and for a browser without script); this only draws them. No inline style: the
// console's CSP allows its own style by hash and scripts of this server only.
(() => {
  const Chart = globalThis.Chart;
  if (!Chart) return;

  const INK = '#1c1e21';
  const GRID = '#e3e5e8';
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.color = '#3c4043';
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.font.size = 12;

  /** Rows of a table: each row's short label and the amount (major units) of its cell marked data-value. */
  function rowsOf(table) {
    return [...table.tBodies[0].rows].map((row) => ({
      label: row.dataset.label ?? '',
      value: Number(row.querySelector('[data-value]')?.dataset.value ?? 0),
    }));
  }

  /** A fill of `color` with white marks, so bars differ by their pattern as well as their colour. */
  function pattern(color, kind) {
    const size = 10;
    const tile = document.createElement('canvas');
    tile.width = size;
    tile.height = size;
    const g = tile.getContext('2d');
    g.fillStyle = color;
    g.fillRect(0, 0, size, size);
    g.strokeStyle = 'rgba(255, 255, 255, 0.8)';
    g.fillStyle = 'rgba(255, 255, 255, 0.8)';
    g.lineWidth = 2;
    g.beginPath();
    if (kind === 'diagonal' || kind === 'cross') {
      g.moveTo(0, size);
      g.lineTo(size, 0);
      g.moveTo(-2, 2);
      g.lineTo(2, -2);
      g.moveTo(size - 2, size + 2);
      g.lineTo(size + 2, size - 2);
    }
    if (kind === 'cross') {
      g.moveTo(0, 0);
      g.lineTo(size, size);
    }
    if (kind === 'horizontal') {
      g.moveTo(0, size / 2);
      g.lineTo(size, size / 2);
    }
    g.stroke();
    if (kind === 'dots') {
      g.beginPath();
      g.arc(size / 2, size / 2, 2, 0, Math.PI * 2);
      g.fill();
    }
    return g.createPattern(tile, 'repeat') ?? color;
  }

  /** Each bar's value written beside it (above, or to the right of a horizontal bar), in dark ink. */
  function valueLabels(format, horizontal) {
    return {
      id: 'valueLabels',
      afterDatasetsDraw(chart) {
        const { ctx } = chart;
        const values = chart.data.datasets[0].data;
        ctx.save();
        ctx.fillStyle = INK;
        ctx.font = `600 12px ${Chart.defaults.font.family}`;
        ctx.textAlign = horizontal ? 'left' : 'center';
        ctx.textBaseline = horizontal ? 'middle' : 'bottom';
        chart.getDatasetMeta(0).data.forEach((bar, i) => {
          const text = format(values[i]);
          if (horizontal) ctx.fillText(text, bar.x + 6, bar.y);
          else ctx.fillText(text, bar.x, bar.y - 4);
        });
        ctx.restore();
      },
    };
  }

  function moneyFormats(currency) {
    const full = new Intl.NumberFormat('en', {
      style: 'currency',
      currency,
      currencyDisplay: 'narrowSymbol',
    });
    const short = new Intl.NumberFormat('en', {
      style: 'currency',
      currency,
      currencyDisplay: 'narrowSymbol',
      notation: 'compact',
      maximumFractionDigits: 1,
    });
    return { full: (v) => full.format(v), short: (v) => short.format(v) };
  }

  const axis = (title) => ({
    title: { display: Boolean(title), text: title, color: INK },
    grid: { color: GRID },
    border: { color: '#767b84' },
  });

  /** Bars along the amount axis, each with its value written beside it; `fill` is one for all or one a bar. */
  function sidewaysBars(rows, money, currency, { label, fill, axisTitle }) {
    const most = Math.max(0, ...rows.map((r) => r.value));
    return {
      type: 'bar',
      data: {
        labels: rows.map((r) => r.label),
        datasets: [
          {
            label: `${label} (${currency})`,
            data: rows.map((r) => r.value),
            backgroundColor: fill,
            borderColor: INK,
            borderWidth: 1,
          },
        ],
      },
      options: {
        indexAxis: 'y',
        layout: { padding: { right: 8 } },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (item) => money.full(item.parsed.x) } },
        },
        scales: {
          x: {
            ...axis(currency),
            beginAtZero: true,
            // Room right of the longest bar for its label.
            suggestedMax: most > 0 ? most * 1.35 : 1,
            ticks: { callback: (v) => money.short(v), maxTicksLimit: 5 },
          },
          y: { ...axis(axisTitle), grid: { display: false } },
        },
      },
      plugins: [valueLabels(money.short, true)],
    };
  }

  /** The Chart.js set-up of each kind of chart. */
  const KINDS = {
    collections(rows, money, currency) {
      return {
        type: 'bar',
        data: {
          labels: rows.map((r) => r.label),
          datasets: [
            {
              label: `Collected (${currency})`,
              data: rows.map((r) => r.value),
              backgroundColor: '#1a5fb4',
              borderColor: '#0d3a75',
              borderWidth: 0,
              barPercentage: 0.9,
              categoryPercentage: 1,
            },
          ],
        },
        options: {
          plugins: {
            legend: { display: false },
            tooltip: { callbacks: { label: (item) => money.full(item.parsed.y) } },
          },
          scales: {
            x: { ...axis('Day'), ticks: { maxRotation: 0, autoSkip: true, maxTicksLimit: 7 } },
            y: {
              ...axis(currency),
              beginAtZero: true,
              ticks: { callback: (v) => money.short(v), maxTicksLimit: 6 },
            },
          },
        },
      };
    },
    ageing(rows, money, currency) {
      const colors = ['#8a5a00', '#b3411e', '#a0231a', '#5c0f0a'];
      const kinds = ['diagonal', 'dots', 'cross', 'horizontal'];
      return sidewaysBars(rows, money, currency, {
        label: 'Overdue',
        fill: rows.map((_, i) => pattern(colors[i % 4], kinds[i % 4])),
        axisTitle: 'Days overdue',
      });
    },
    expected(rows, money, currency) {
      return sidewaysBars(rows, money, currency, {
        label: 'Expected',
        fill: pattern('#146c2e', 'diagonal'),
        axisTitle: 'Week from',
      });
    },
  };

  for (const box of document.querySelectorAll('[data-chart]')) {
    const table = document.getElementById(box.dataset.table ?? '');
    const kind = KINDS[box.dataset.chart ?? ''];
    const currency = table?.dataset.currency;
    if (!table || !kind || !currency) continue;
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${box.dataset.title ?? 'Chart'}: the same numbers are in the table.`);
    box.classList.add('chart');
    box.append(canvas);
    new Chart(canvas, kind(rowsOf(table), moneyFormats(currency), currency));
  }
})();
