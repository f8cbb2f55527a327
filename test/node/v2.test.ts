import { testApp } from '../support/harness';
import { v2Suite } from '../suites/v2.suite';

const t = testApp();
v2Suite(() => t);
