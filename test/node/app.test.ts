/** The whole app (src/app.ts) through the runtime-neutral suites: smoke over the fixture in memory, v2 over the compiled dataset on disk. */
import { diskApp } from '../support/gateway';
import { smokeSuite } from '../suites/smoke.suite';
import { v2Suite } from '../suites/v2.suite';
import { testApp } from '../support/harness';

smokeSuite(() => testApp());
const t = diskApp();
v2Suite(() => t);
