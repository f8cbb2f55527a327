import { smokeSuite } from '../suites/smoke.suite';
import { testApp } from '../support/harness';

smokeSuite(() => testApp());
