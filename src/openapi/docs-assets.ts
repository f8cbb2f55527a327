/**
 * The files of the reference UI (`swagger-ui-dist`), which only an entry can load: Node reads
 * them from `node_modules`, the Workers bundle carries them as text modules.
 */
export interface DocsAssets {
  script(): string;
  style(): string;
}
