/**
 * Drawing a polygon on the map: "Draw a shape", then a click per corner, then "Close the shape" (or Enter);
 * Escape abandons the drawing, "Clear the shape" removes the shape from the selection. The buttons are the page's
 * own (keyboard and screen readers reach them); the corners are map clicks. The closed shape is handed to the
 * page, which puts it in the URL and the filters; the map shows the selection's shape as a filled outline.
 */
import L from 'leaflet';
import { say } from './dom.js';
import { MAX_SHAPE_VERTICES, vertexOf, type Shape, type Vertex } from './shape.js';

export interface ShapeControls {
  readonly draw: HTMLButtonElement;
  readonly close: HTMLButtonElement;
  readonly clear: HTMLButtonElement;
  readonly status: HTMLElement;
}

export interface DrawShape {
  /** Whether a drawing is under way: clicks then add corners rather than pick locations or regions. */
  readonly drawing: () => boolean;
  /** Shows the selection's shape (null: none). */
  show(shape: Shape | null): void;
}

const STYLE: L.PathOptions = { color: '#b45309', weight: 2, fillColor: '#f59e0b', fillOpacity: 0.12 };

export function drawShape(map: L.Map, controls: ShapeControls, onShape: (shape: Shape | null) => void): DrawShape {
  let corners: Vertex[] = [];
  let drawing = false;
  let current: Shape | null = null;
  const sketch = L.polyline([], { ...STYLE, dashArray: '4 4', interactive: false }).addTo(map);
  const outline = L.polygon([], { ...STYLE, interactive: false }).addTo(map);
  const latLngs = (vs: readonly Vertex[]) => vs.map(([x, y]) => [y, x] as L.LatLngTuple);

  function render(): void {
    sketch.setLatLngs(latLngs(corners));
    controls.draw.setAttribute('aria-pressed', String(drawing));
    controls.close.disabled = !drawing || corners.length < 3;
    controls.clear.disabled = !drawing && !current;
    map.getContainer().classList.toggle('drawing', drawing);
  }

  function stop(): void {
    drawing = false;
    corners = [];
    render();
  }

  function finish(): void {
    if (corners.length < 3) return;
    const shape = corners;
    stop();
    say(controls.status, `Shape closed with ${shape.length} corners: the panels now count and list what lies inside it.`);
    onShape(shape);
  }

  controls.draw.addEventListener('click', () => {
    if (drawing) return stop(), say(controls.status, 'Drawing abandoned.');
    drawing = true;
    corners = [];
    render();
    say(controls.status, 'Click the map at each corner of the shape, then "Close the shape" (or press Enter); Escape abandons it.');
  });
  controls.close.addEventListener('click', finish);
  controls.clear.addEventListener('click', () => {
    stop();
    say(controls.status, 'Shape cleared.');
    onShape(null);
  });
  map.on('click', (e: L.LeafletMouseEvent) => {
    if (!drawing) return;
    if (corners.length >= MAX_SHAPE_VERTICES) return say(controls.status, `A shape has at most ${MAX_SHAPE_VERTICES} corners: close it now.`, 'error');
    const { lng, lat } = e.latlng.wrap();
    corners.push(vertexOf(lng, lat));
    render();
    say(controls.status, `${corners.length} corner${corners.length === 1 ? '' : 's'}${corners.length >= 3 ? ': "Close the shape" when done.' : '.'}`);
  });
  document.addEventListener('keydown', (e) => {
    if (!drawing) return;
    if (e.key === 'Escape') stop(), say(controls.status, 'Drawing abandoned.');
    else if (e.key === 'Enter' && corners.length >= 3 && !(e.target instanceof HTMLButtonElement)) finish();
  });

  return {
    drawing: () => drawing,
    show(shape) {
      current = shape;
      outline.setLatLngs(shape ? latLngs(shape) : []);
      render();
    },
  };
}
