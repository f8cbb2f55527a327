import type { RecordRequest, RequestFacts } from '../services/request-facts';

/** The longest index Analytics Engine accepts, in bytes. */
const MAX_INDEX_BYTES = 96;
const encoder = new TextEncoder();

/**
 * One Workers Analytics Engine data point per request (docs/reference/observability.md), in the dataset bound
 * as `METRICS`. The subject is the index (Analytics Engine samples per index, and usage per
 * project is a query on it); the other fields are the dimensions of the Node metrics, in the
 * order docs/workers.md gives for its SQL queries. Writing never fails a request: a point the
 * runtime refuses is dropped.
 */
export function analyticsEngineRecorder(dataset: AnalyticsEngineDataset): RecordRequest {
  return (facts) => {
    try {
      dataset.writeDataPoint(dataPoint(facts));
    } catch {
      // A metrics point is not worth a failed answer.
    }
  };
}

/** The data point of a request: see docs/workers.md for what each blob and double holds. */
export function dataPoint(f: RequestFacts): AnalyticsEngineDataPoint {
  return {
    indexes: [index(f.subject ?? 'anonymous')],
    blobs: [
      f.version ?? '',
      f.route ?? '',
      f.method,
      f.status === null ? 'aborted' : String(f.status),
      f.answeredBy,
      f.backend?.backend ?? '',
      f.backend?.outcome ?? '',
      f.cache ?? '',
    ],
    doubles: [f.durationMs, f.status ?? 0, f.backend?.durationMs ?? 0, f.backend?.status ?? 0, f.responseBytes ?? 0],
  };
}

/** The subject as an index, cut to what Analytics Engine takes. */
function index(subject: string): string {
  if (encoder.encode(subject).byteLength <= MAX_INDEX_BYTES) return subject;
  let cut = subject.slice(0, MAX_INDEX_BYTES);
  while (encoder.encode(cut).byteLength > MAX_INDEX_BYTES) cut = cut.slice(0, -1);
  return cut;
}
