import type uPlot from 'uplot';

/** Runs `draw` on the chart's canvas clipped to its plot area, the canvas' state restored after. */
export function inPlotArea(u: uPlot, draw: (ctx: CanvasRenderingContext2D, box: uPlot.BBox) => void): void {
  const { left, top, width, height } = u.bbox;
  u.ctx.save();
  u.ctx.beginPath();
  u.ctx.rect(left, top, width, height);
  u.ctx.clip();
  draw(u.ctx, u.bbox);
  u.ctx.restore();
}
