import { testApp } from '../support/harness';
import { conditionalSuite } from '../suites/conditional.suite';

const t = testApp();
conditionalSuite(() => t);
