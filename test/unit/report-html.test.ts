import { describe, expect, it } from 'vitest';
import { escapeHtml, simulationReportHtml } from '../../src/sim/report-html.js';
import { simulate } from '../../src/sim/simulate.js';

describe('the HTML report', () => {
  const runs = ['fifo', 'drf'].map((policy) => simulate({ workload: 'sample:tiny', policy, seed: 2 }));

  it('is one self-contained page: no script, no stylesheet, image or font from elsewhere', () => {
    const page = simulationReportHtml(runs, { generatedAt: new Date('2026-11-24T12:00:00Z') });
    expect(page.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(page).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    // Only the SVG namespace is a URL, and it is a name, not a fetch.
    expect(page.match(/https?:\/\/[^"\s<]+/g) ?? []).toEqual(['http://www.w3.org/2000/svg', 'http://www.w3.org/2000/svg']);
    expect(page.match(/<svg /g)?.length).toBe(2);
  });

  it('puts the runs side by side, one column per policy, with their figures', () => {
    const page = simulationReportHtml(runs);
    expect(page).toContain('<thead><tr><th>metric</th><th>fifo</th><th>drf</th></tr></thead>');
    const row = page.split('\n').find((l) => l.includes('>jobs finished<'));
    expect(row).toBe(`<tr><th scope="row">jobs finished</th><td>${runs[0].jobs}</td><td>${runs[1].jobs}</td></tr>`);
    const p50 = page.split('\n').find((l) => l.includes('>JCT (s) p50<'));
    expect(p50).toContain(`<td${runs[0].jct.p50 < runs[1].jct.p50 ? ' class="best"' : ''}>${runs[0].jct.p50.toFixed(1)}</td>`);
  });

  it('draws the recorded cluster’s completion times beside the replays when given', () => {
    expect(simulationReportHtml(runs)).not.toContain('recorded cluster');
    expect(simulationReportHtml(runs, { recordedJctS: [1, 2, 3] })).toContain('>recorded cluster</text>');
  });

  it('escapes what it did not write', () => {
    expect(escapeHtml(`<b>"x" & 'y'</b>`)).toBe('&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;');
    const page = simulationReportHtml(runs, { title: '<script>alert(1)</script>', notes: ['a < b'] });
    expect(page).not.toContain('<script>');
    expect(page).toContain('<p>a &lt; b</p>');
  });

  it('refuses to report nothing', () => {
    expect(() => simulationReportHtml([])).toThrow(/at least one run/);
  });
});
