import { testApp } from '../support/harness';
import { methodsSuite } from '../suites/methods.suite';

methodsSuite(() => testApp(), ['PROPFIND', 'PURGE', 'LINK']);
