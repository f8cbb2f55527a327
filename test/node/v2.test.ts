import { diskApp } from '../support/gateway';
import { v2Suite } from '../suites/v2.suite';

const t = diskApp();
v2Suite(() => t);
