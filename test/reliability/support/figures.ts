/**
 * The figures a reliability test reports: printed on one line per test (`[reliability] …`) so
 * that a run's output says how much was actually proven, not only that nothing failed.
 */
export function reportFigures(test: string, figures: Readonly<Record<string, number | string>>): void {
  const parts = Object.entries(figures).map(([name, value]) => `${name}=${value}`);
  console.log(`[reliability] ${test}: ${parts.join(' ')}`);
}
