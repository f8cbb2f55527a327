import { ENUMERATIONS } from '../../core/resources';
import type { VersionChange } from '../version';

const routes = ENUMERATIONS.map(({ parent, child }) => `\`/${parent}/{id}/${child}\``).join(', ');

export const noEnumerations: VersionChange = {
  name: 'no-enumerations',
  description: `The enumeration routes new in v2 (${routes}) do not exist: they answer 404.`,
  withoutEnumerations: true,
};
