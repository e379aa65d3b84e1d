/** Where a progress bar is drawn: standard error, drawn on only when it is a terminal. */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

const BAR_WIDTH = 30;

/**
 * A one-line progress bar redrawn in place (`\r`) on a terminal, and nothing at all otherwise:
 * logs and pipes get the one summary line the command prints at the end instead.
 */
export class ProgressBar {
  private shownPercent = -1;

  constructor(
    private readonly label: string,
    private readonly output: ProgressOutput,
  ) {}

  update(done: number, total: number): void {
    if (this.output.isTTY !== true || total <= 0) return;
    const percent = Math.min(100, Math.floor((done / total) * 100));
    // Redrawn only when the figure changes: a fast copy makes thousands of steps.
    if (percent === this.shownPercent) return;
    this.shownPercent = percent;
    const filled = Math.round((percent / 100) * BAR_WIDTH);
    this.output.write(`\r${this.label} [${'#'.repeat(filled)}${' '.repeat(BAR_WIDTH - filled)}] ${percent}%`);
  }

  /** Ends the bar's line, so that what is printed next starts on a line of its own. */
  finish(): void {
    if (this.output.isTTY === true && this.shownPercent >= 0) this.output.write('\n');
  }
}
