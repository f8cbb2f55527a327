import { diskApp } from '../support/gateway';
import { conditionalSuite } from '../suites/conditional.suite';

const t = diskApp();
conditionalSuite(() => t);
