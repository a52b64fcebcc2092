import { Field } from 'type-graphql';
import { ApiInput } from '../../core/validation/api-input';
import { ChatFollowUps, ChatSharedChannels, ChatThreadDetail } from './chat-integration.types';

/** Any subset of the three settings; unknown keys are rejected (422 extra_forbidden). */
@ApiInput('ChatSettingsUpdateInput', { strict: true, description: 'Any subset of the chat settings; unknown keys are rejected (422 `extra_forbidden`). Applies to turns that start after the write.' })
export class ChatSettingsUpdateInput {
  @Field(() => ChatFollowUps, { nullable: true, description: 'requester or any_linked; absent or null leaves it unchanged.' })
  follow_ups?: ChatFollowUps | null;

  @Field(() => ChatSharedChannels, { nullable: true, description: 'link or same; absent or null leaves it unchanged.' })
  shared_channels?: ChatSharedChannels | null;

  @Field(() => ChatThreadDetail, { nullable: true, description: 'full, final or link; absent or null leaves it unchanged.' })
  thread_detail?: ChatThreadDetail | null;
}
